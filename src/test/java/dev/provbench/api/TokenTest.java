package dev.provbench.api;

import dev.provbench.run.RunLauncher;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

@QuarkusTest
@TestProfile(TokenTest.WithToken.class)
class TokenTest {
    public static class WithToken implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("provbench.api.token", "s3cret-token");
        }
    }

    @Inject
    RunLauncher launcher;

    @Test
    void mutatingCallsNeedTheBearerToken() {
        launcher.enable();
        String bad = "{\"threads\": 0, \"local\": true}"; // passes the filter → 400, never starts a run
        given().contentType(ContentType.JSON).body(bad).post("/api/runs").then().statusCode(401)
                .header("WWW-Authenticate", containsString("Bearer")).body("error", containsString("Bearer"));
        given().contentType(ContentType.JSON).header("Authorization", "Bearer wrong").body(bad).post("/api/runs")
                .then().statusCode(401).body("error", containsString("not right"));
        given().contentType(ContentType.JSON).header("Authorization", "Basic czNjcmV0LXRva2Vu").body(bad)
                .post("/api/runs").then().statusCode(401);
        given().contentType(ContentType.JSON).header("Authorization", "Bearer s3cret-token").body(bad)
                .post("/api/runs").then().statusCode(400).body("field", equalTo("threads"));
        given().delete("/api/runs/nope").then().statusCode(401);
        given().header("Authorization", "Bearer s3cret-token").delete("/api/runs/nope").then().statusCode(404);
        given().contentType(ContentType.JSON).body("{\"maxVolumes\": 5}").put("/driver/limits").then()
                .statusCode(401);
        given().delete("/driver/injection").then().statusCode(401);
        // reads stay open
        given().get("/api/runs").then().statusCode(200);
        given().get("/api/runs/nope").then().statusCode(404);
        given().get("/driver/limits").then().statusCode(200);
        given().get("/").then().statusCode(200);
    }
}
