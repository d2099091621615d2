package dev.provbench.api;

import dev.provbench.TestAuth;
import dev.provbench.run.RunLauncher;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/** The test profile configures the token {@link TestAuth#TOKEN}; nothing here sends it unless it says so. */
@QuarkusTest
class TokenTest {
    private static final String BEARER = "Bearer " + TestAuth.TOKEN;

    @Inject
    RunLauncher launcher;

    @Inject
    ApiAccess access;

    @BeforeEach
    void noDefaultHeader() {
        TestAuth.none();
    }

    @AfterEach
    void reset() {
        launcher.disable();
    }

    @Test
    void everyApiAndDriverCallNeedsTheTokenReadsIncluded() {
        launcher.enable(); // provbench serve
        String bad = "{\"threads\": 0, \"local\": true}"; // passes the filter → 400, never starts a run
        given().contentType(ContentType.JSON).body(bad).post("/api/runs").then().statusCode(401)
                .header("WWW-Authenticate", containsString("Bearer"))
                .body("error", containsString("Authorization: Bearer <token>"));
        given().contentType(ContentType.JSON).header("Authorization", "Bearer wrong").body(bad).post("/api/runs")
                .then().statusCode(401).body("error", containsString("not right"));
        given().contentType(ContentType.JSON).header("Authorization", "Basic dGVzdC10b2tlbg==").body(bad)
                .post("/api/runs").then().statusCode(401);
        given().contentType(ContentType.JSON).header("Authorization", BEARER).body(bad)
                .post("/api/runs").then().statusCode(400).body("field", equalTo("threads"));
        for (String read : new String[]{"/api/runs", "/api/runs/nope", "/api/runs/nope/report", "/driver/stats",
                "/driver/limits", "/driver/injection"}) {
            given().get(read).then().statusCode(401);
        }
        given().header("Authorization", BEARER).get("/api/runs").then().statusCode(200);
        given().header("Authorization", BEARER).get("/driver/stats").then().statusCode(200);
        given().delete("/api/runs/nope").then().statusCode(401);
        given().header("Authorization", BEARER).delete("/api/runs/nope").then().statusCode(404);
        given().contentType(ContentType.JSON).body("{\"maxVolumes\": 5}").put("/driver/limits").then()
                .statusCode(401);
        given().delete("/driver/injection").then().statusCode(401);
        // the live page's files, health and metrics stay open
        given().get("/").then().statusCode(200);
        given().get("/app.js").then().statusCode(200);
        given().get("/q/health/ready").then().statusCode(200);
    }

    @Test
    void aProcessThatStartsNoRunsKeepsItsStatsOpenForScraping() {
        launcher.disable(); // provbench driver (and run) start no runs
        // GET /driver/stats is read-only and open there; the control API is not
        given().get("/driver/stats").then().statusCode(200);
        given().head("/driver/stats").then().statusCode(200);
        given().get("/driver/limits").then().statusCode(401);
        given().contentType(ContentType.JSON).body("{\"maxVolumes\": 5}").put("/driver/limits").then()
                .statusCode(401);
        given().get("/api/runs").then().statusCode(401);
    }

    @Test
    void noAuthOpensEverything() {
        launcher.enable();
        access.open();
        try {
            given().get("/api/runs").then().statusCode(200);
        } finally {
            access.require();
        }
    }
}
