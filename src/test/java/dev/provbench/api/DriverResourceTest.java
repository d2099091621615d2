package dev.provbench.api;

import csi.v1.Csi.GetPluginInfoRequest;
import dev.provbench.csi.CsiServer;
import dev.provbench.csi.TestDriver;
import dev.provbench.csi.state.VolumeStore;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

@QuarkusTest
class DriverResourceTest {
    @Inject
    CsiServer server;
    @Inject
    VolumeStore store;

    @org.junit.jupiter.api.AfterEach
    void noBearer() {
        dev.provbench.TestAuth.none();
    }

    @BeforeEach
    void serve() {
        dev.provbench.TestAuth.bearer();
        TestDriver.client(server);
    }

    @Test
    void aServeWithoutDriverIsReadyAndItsDriverApiNamesWhereTheDriverIs() {
        server.stop();
        server.servedElsewhere("http://provbench-driver.example:8080");
        try {
            given().get("/driver/stats").then().statusCode(404)
                    .body("error", containsString("http://provbench-driver.example:8080"));
            given().contentType(ContentType.JSON).body("{\"maxVolumes\":5}").put("/driver/limits")
                    .then().statusCode(404);
            given().get("/q/health/ready").then().statusCode(200)
                    .body("checks.find { it.name == 'csi-driver' }.data.endpoint", containsString("--no-driver"));
        } finally {
            server.servedElsewhere(null);
            TestDriver.client(server);
        }
        given().get("/driver/stats").then().statusCode(200).body("serving", equalTo(true));
    }

    @Test
    void limitsCanBeReadAndChanged() {
        var saved = store.limits();
        try {
            given().get("/driver/limits").then().statusCode(200).body("defaultVolumeSize", equalTo("1Gi"));
            given().contentType(ContentType.JSON).body("{\"maxVolumes\":5,\"totalCapacity\":\"10Gi\"}")
                    .put("/driver/limits").then().statusCode(200)
                    .body("maxVolumes", equalTo(5)).body("totalCapacity", equalTo("10Gi"));
            assertEquals(10L << 30, store.limits().totalCapacity());
            assertEquals(saved.defaultVolumeSize(), store.limits().defaultVolumeSize(), "absent fields unchanged");
            given().contentType(ContentType.JSON).body("{\"maxHeldBytes\":\"1Mi\"}")
                    .put("/driver/limits").then().statusCode(200).body("maxHeldBytes", equalTo("1Mi"));
            assertEquals(1L << 20, store.limits().maxHeldBytes());
            given().contentType(ContentType.JSON).body("{\"maxVolumeSize\":\"lots\"}")
                    .put("/driver/limits").then().statusCode(400).body("error", containsString("maxVolumeSize"));
            given().contentType(ContentType.JSON).body("{\"maxVolumes\":-1}")
                    .put("/driver/limits").then().statusCode(400).body("error", containsString("negative"));
        } finally {
            store.setLimits(saved);
        }
    }

    @Test
    void statsMetricsAndReadiness() {
        TestDriver.client(server).identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
        given().get("/driver/stats").then().statusCode(200)
                .body("serving", equalTo(true))
                .body("calls.GetPluginInfo.OK", greaterThanOrEqualTo(1));
        given().get("/q/metrics").then().statusCode(200)
                // the text format (a plain scrape gets it: api.MetricsFormat) may end the labels with a comma
                .body(containsString("provbench_csi_requests_total{code=\"OK\",method=\"GetPluginInfo\""))
                .body(containsString("provbench_csi_request_duration_seconds_bucket"))
                .body(containsString("provbench_csi_volumes"));
        given().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
    }

    @Test
    void notReadyWhileTheSocketIsNotServed() {
        server.stop();
        try {
            given().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"));
        } finally {
            TestDriver.client(server);
        }
        given().get("/q/health/ready").then().statusCode(200);
    }
}
