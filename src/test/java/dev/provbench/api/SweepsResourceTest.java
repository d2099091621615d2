package dev.provbench.api;

import dev.provbench.RunBounds;
import dev.provbench.compare.Samples;
import dev.provbench.run.RunExecution;
import dev.provbench.run.RunLauncher;
import dev.provbench.sweep.SweepExecution;
import dev.provbench.sweep.SweepLauncher;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** POST /api/sweeps: the options of provbench sweep, the states of a run, the result filling in. */
@QuarkusTest
class SweepsResourceTest {
    @Inject
    RunLauncher launcher;
    @Inject
    SweepLauncher sweeps;
    /** The sweep the test started, ended (abort + await) after it whatever happened. */
    private String started;

    @BeforeEach
    void serve() {
        dev.provbench.TestAuth.bearer();
        launcher.enable();
    }

    @AfterEach
    void endOwnSweepAndNoBearer() throws InterruptedException {
        try {
            SweepExecution s = started == null ? null : sweeps.get(started).orElse(null);
            if (s != null && s.abort()) {
                RunExecution current = s.current();
                Duration bound = current == null ? RunBounds.MARGIN : RunBounds.afterAbort(current.checked().config());
                long deadline = System.nanoTime() + bound.toNanos();
                while (!s.state().ended() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertTrue(s.state().ended(), "sweep " + started + " did not end within " + bound.toSeconds()
                        + " s of its abort");
            }
        } finally {
            started = null;
            dev.provbench.TestAuth.none();
        }
    }

    @Test
    void aLocalSweepRunsFillsInAndReportsInEveryFormat() throws Exception {
        String id = given().contentType(ContentType.JSON).body("{\"qps\": \"-1\", \"provisionerQps\": \"5,-1\", "
                        + "\"repeats\": 2, \"seed\": 3, \"threads\": \"4\", \"run\": {\"local\": true, \"cycles\": 8, "
                        + "\"localApiLatency\": \"0\", \"interval\": \"1s\"}}")
                .post("/api/sweeps").then().statusCode(202).header("Location", containsString("/api/sweeps/s"))
                .extract().path("id");
        started = id;
        // what its runs' own limits allow (RunBounds), not a guess a busy machine can miss
        Duration bound = RunBounds.sweep(sweeps.get(id).orElseThrow().plan());
        // while it runs no other run or sweep starts
        given().contentType(ContentType.JSON).body("{\"local\": true}").post("/api/runs").then().statusCode(409);
        given().contentType(ContentType.JSON).body("{\"run\": {\"local\": true}}").post("/api/sweeps").then()
                .statusCode(409);
        Response r = null;
        boolean sawPartial = false;
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            r = given().get("/api/sweeps/" + id);
            assertEquals(200, r.statusCode(), r.asString());
            String state = r.path("state");
            Integer done = r.path("progress.runsDone");
            if ("running".equals(state) && done != null && done > 0 && done < 4) {
                sawPartial |= r.path("result.cells") != null;
            }
            if (List.of("succeeded", "failed", "aborted").contains(state)) {
                break;
            }
            Thread.sleep(100);
        }
        if (r == null || !"succeeded".equals(r.path("state"))) {
            fail("the sweep did not succeed within its bound of " + bound.toSeconds() + " s: "
                    + (r == null ? null : r.asString()));
        }
        assertTrue(sawPartial, "the result fills in while the sweep runs");
        assertEquals(4, (int) r.path("progress.runsDone"));
        assertEquals(2, (int) r.path("result.cells[0].n"));
        assertEquals(3, ((Number) r.path("result.seed")).intValue());
        String bench = given().get("/api/sweeps/" + id + "/report?format=bench").then().statusCode(200).extract()
                .asString();
        assertEquals(2, Samples.parseText(bench).values().size(), bench);
        given().get("/api/sweeps/" + id + "/report?format=json").then().statusCode(200)
                .body("cells.size()", equalTo(2)).body("recommendations[0].text", containsString("--kube-api-qps="));
        given().get("/api/sweeps/" + id + "/report?format=html").then().statusCode(200)
                .body(containsString("<svg"));
        given().get("/api/sweeps/" + id + "/report?format=xml").then().statusCode(400);
        given().delete("/api/sweeps/" + id).then().statusCode(409);
    }

    @Test
    void badFieldsAreNamedAndACommandIsRefused() {
        given().contentType(ContentType.JSON).body("{\"repeats\": 0, \"run\": {\"local\": true}}").post("/api/sweeps")
                .then().statusCode(400).body("field", equalTo("repeats"));
        given().contentType(ContentType.JSON).body("{\"run\": {\"local\": true, \"duration\": \"soon\"}}")
                .post("/api/sweeps").then().statusCode(400).body("field", equalTo("run.duration"));
        given().contentType(ContentType.JSON).body("{\"run\": {\"local\": true, \"threads\": 8}}")
                .post("/api/sweeps").then().statusCode(400).body("field", equalTo("run.threads"))
                .body("error", containsString("axis"));
        given().contentType(ContentType.JSON).body("{\"run\": {\"local\": true, \"bogus\": 1}}").post("/api/sweeps")
                .then().statusCode(400).body("field", equalTo("run.bogus"));
        given().contentType(ContentType.JSON).body("{\"provisionerQps\": \"5,10\", \"provisionerControl\": "
                + "\"command:touch /tmp/x {qps}\", \"run\": {\"storageClass\": \"sc\"}}").post("/api/sweeps")
                .then().statusCode(400).body("field", equalTo("provisionerControl"));
        given().contentType(ContentType.JSON).body("{\"run\": {\"local\": true, \"auditLog\": \"/etc/passwd\"}}")
                .post("/api/sweeps").then().statusCode(400).body("field", equalTo("run.auditLog"));
        given().get("/api/sweeps/nope").then().statusCode(404);
    }
}
