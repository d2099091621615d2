package dev.provbench.csi;

import csi.v1.Csi.GetPluginInfoRequest;
import csi.v1.Csi.NodeGetInfoRequest;
import csi.v1.Csi.ProbeRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static dev.provbench.csi.CsiClient.expectCode;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Latency and fault injection, changed over HTTP while the driver serves. */
@QuarkusTest
class InjectionTest {
    @Inject
    CsiServer server;
    @Inject
    FaultInjector injector;
    @Inject
    CallMetrics metrics;

    CsiClient csi;

    @org.junit.jupiter.api.AfterEach
    void noBearer() {
        dev.provbench.TestAuth.none();
    }

    @BeforeEach
    void connect() {
        dev.provbench.TestAuth.bearer();
        csi = TestDriver.client(server);
    }

    @AfterEach
    void clear() {
        given().delete("/driver/injection").then().statusCode(204);
    }

    @Test
    void fixedDelayIsObserved() {
        given().contentType(ContentType.JSON).body("{\"latency\":\"300ms\"}")
                .put("/driver/injection/Probe").then().statusCode(200).body("latency", equalTo("300ms"));
        long start = System.nanoTime();
        csi.identity.probe(ProbeRequest.getDefaultInstance());
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(tookMs >= 300, "Probe took " + tookMs + " ms with 300ms injected");
        // other methods are untouched: with Probe held for a minute, GetPluginInfo still answers within a deadline
        // of 30 s (no wall-clock bound a busy machine can miss; a delay applied to it would miss this one)
        given().contentType(ContentType.JSON).body("{\"latency\":\"60s\"}")
                .put("/driver/injection/Probe").then().statusCode(200);
        csi.identity.withDeadlineAfter(30, java.util.concurrent.TimeUnit.SECONDS)
                .getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
        CsiClient.expectCode(Status.Code.DEADLINE_EXCEEDED, () -> csi.identity
                .withDeadlineAfter(200, java.util.concurrent.TimeUnit.MILLISECONDS)
                .probe(ProbeRequest.getDefaultInstance()));
    }

    @Test
    void aCallWhoseClientGaveUpFreesItsLatencySlotAtOnce() throws Exception {
        given().contentType(ContentType.JSON).body("{\"latency\":\"30s\"}")
                .put("/driver/injection/Probe").then().statusCode(200);
        int before = injector.delayedCalls();
        CsiClient.expectCode(Status.Code.DEADLINE_EXCEEDED, () -> csi.identity
                .withDeadlineAfter(200, java.util.concurrent.TimeUnit.MILLISECONDS)
                .probe(ProbeRequest.getDefaultInstance()));
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (injector.delayedCalls() > before && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(before, injector.delayedCalls(), "the cancelled call no longer holds a slot");
    }

    @Test
    void errorRateWithinTolerance() {
        given().contentType(ContentType.JSON).body("{\"errorRate\":0.3,\"errorCode\":\"UNAVAILABLE\"}")
                .put("/driver/injection/GetPluginInfo").then().statusCode(200);
        long injectedBefore = injector.injectedFaults("GetPluginInfo", Status.Code.UNAVAILABLE);
        long unavailableBefore = metrics.count("GetPluginInfo", Status.Code.UNAVAILABLE);
        int n = 2000;
        int failed = 0;
        for (int i = 0; i < n; i++) {
            try {
                csi.identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
            } catch (StatusRuntimeException e) {
                assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode());
                assertEquals("injected fault", e.getStatus().getDescription());
                failed++;
            }
        }
        // binomial(2000, 0.3): mean 600, sd 20.5; ±6 sd
        assertTrue(failed > 477 && failed < 723, "failed " + failed + " of " + n);
        assertEquals(failed, injector.injectedFaults("GetPluginInfo", Status.Code.UNAVAILABLE) - injectedBefore,
                "injected faults are counted on their own");
        assertEquals(failed, metrics.count("GetPluginInfo", Status.Code.UNAVAILABLE) - unavailableBefore);
    }

    @Test
    void wildcardRuleAppliesToEveryMethodWithoutOwnRule() {
        given().contentType(ContentType.JSON).body("{\"errorRate\":1,\"errorCode\":\"INTERNAL\"}")
                .put("/driver/injection/*").then().statusCode(200);
        given().contentType(ContentType.JSON).body("{\"errorRate\":0}")
                .put("/driver/injection/Probe").then().statusCode(200);
        expectCode(Status.Code.INTERNAL, () -> csi.node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()));
        csi.identity.probe(ProbeRequest.getDefaultInstance());
        given().get("/driver/injection").then().statusCode(200)
                .body("'*'.errorCode", equalTo("INTERNAL"))
                .body("Probe.errorRate", equalTo(0.0f));
        given().delete("/driver/injection/*").then().statusCode(204);
        csi.node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
    }

    @Test
    void badRulesAreRejectedNamingTheProblem() {
        given().contentType(ContentType.JSON).body("{\"errorRate\":0.5}")
                .put("/driver/injection/NoSuchMethod").then().statusCode(400)
                .body("error", containsString("NoSuchMethod"));
        given().contentType(ContentType.JSON).body("{\"errorRate\":1.5}")
                .put("/driver/injection/Probe").then().statusCode(400).body("error", containsString("errorRate"));
        given().contentType(ContentType.JSON).body("{\"latency\":\"soon\"}")
                .put("/driver/injection/Probe").then().statusCode(400).body("error", containsString("soon"));
        given().contentType(ContentType.JSON).body("{\"errorRate\":0.1,\"errorCode\":\"OK\"}")
                .put("/driver/injection/Probe").then().statusCode(400).body("error", containsString("errorCode"));
        given().contentType(ContentType.JSON).body("{\"errorRate\":0.1,\"errorCode\":\"NOPE\"}")
                .put("/driver/injection/Probe").then().statusCode(400).body("error", containsString("NOPE"));
        given().contentType(ContentType.JSON).body("{\"latency\":\"uniform(1s,1000000h)\"}")
                .put("/driver/injection/CreateVolume").then().statusCode(400).body("error", containsString("60s"));
        given().delete("/driver/injection/Probe").then().statusCode(404);
    }
}
