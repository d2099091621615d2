package dev.provbench.api;

import dev.provbench.run.RunLauncher;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/** {@code POST /api/cleanup}: its checks; what it removes is shown on the real cluster by hack/deploy-check. */
@QuarkusTest
class CleanupResourceTest {
    @Inject
    RunLauncher launcher;

    @BeforeEach
    void serve() {
        dev.provbench.TestAuth.bearer();
        launcher.enable();
    }

    @AfterEach
    void noBearer() {
        dev.provbench.TestAuth.none();
    }

    @Test
    void needsTheToken() {
        dev.provbench.TestAuth.none();
        given().contentType(ContentType.JSON).body("{\"all\": true}").post("/api/cleanup").then().statusCode(401);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{}|runId",
            "{\"runId\": \"abc\", \"all\": true}|runId",
            "{\"runId\": \"NOT-AN-ID\"}|runId",
            "{\"all\": true, \"namespace\": \"Bad_NS\"}|namespace",
            "{\"all\": true, \"timeout\": \"2h\"}|timeout",
            "{\"all\": true, \"timeout\": \"soon\"}|timeout",
            "{\"all\": true, \"kubeconfig\": \"/etc/passwd\"}|kubeconfig",
            "{\"all\": true, \"namespaces\": 0}|namespaces",
            "{\"all\": true, \"namespaces\": 101}|namespaces",
            "{\"population\": true, \"runId\": \"abc\"}|population",
            "{\"population\": true, \"namespaces\": 2}|namespaces"})
    void badRequestsNameTheField(String body, String field) {
        given().contentType(ContentType.JSON).body(body).post("/api/cleanup").then().statusCode(400)
                .body("field", equalTo(field));
    }

    @Test
    void theActiveRunsClaimsAreNotTakenFromIt() throws Exception {
        String id = given().contentType(ContentType.JSON)
                .body("{\"local\": true, \"duration\": \"1m\", \"threads\": 2, \"interval\": \"1s\"}")
                .post("/api/runs").then().statusCode(202).extract().path("id");
        try {
            given().contentType(ContentType.JSON).body("{\"all\": true}").post("/api/cleanup").then()
                    .statusCode(409).body("activeRun", equalTo(id));
            given().contentType(ContentType.JSON).body("{\"runId\": \"" + id + "\"}").post("/api/cleanup").then()
                    .statusCode(409).body("error", containsString(id));
        } finally {
            RunsResourceTest.end(id);
        }
    }
}
