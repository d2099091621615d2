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
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    void callsArePagedWithWhenEachWasReceivedAndAnswered() {
        var client = TestDriver.client(server);
        long after = given().queryParam("after", 0).queryParam("limit", 10_000).get("/driver/calls").then()
                .statusCode(200).extract().jsonPath().getLong("next");
        String name = "pvc-" + java.util.UUID.randomUUID();
        String id = client.controller.createVolume(csi.v1.Csi.CreateVolumeRequest.newBuilder().setName(name)
                .addVolumeCapabilities(csi.v1.Csi.VolumeCapability.newBuilder()
                        .setMount(csi.v1.Csi.VolumeCapability.MountVolume.getDefaultInstance())
                        .setAccessMode(csi.v1.Csi.VolumeCapability.AccessMode.newBuilder()
                                .setMode(csi.v1.Csi.VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))).build())
                .getVolume().getVolumeId();
        client.controller.deleteVolume(csi.v1.Csi.DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
        var page = given().queryParam("after", after).get("/driver/calls").then().statusCode(200)
                .body("calls.size()", equalTo(2)).body("missed", equalTo(0)).extract().jsonPath();
        assertEquals("CreateVolume", page.getString("calls[0].method"));
        assertEquals(name, page.getString("calls[0].name"));
        assertEquals(id, page.getString("calls[0].volumeId"));
        assertEquals("OK", page.getString("calls[0].code"));
        assertEquals("DeleteVolume", page.getString("calls[1].method"));
        assertEquals(id, page.getString("calls[1].name"));
        long received = page.getLong("calls[0].received");
        long answered = page.getLong("calls[0].answered");
        assertTrue(received > 1_600_000_000_000_000L && answered >= received, received + " … " + answered);
        assertEquals(after + 2, page.getLong("next"));
        // paging on from next gives nothing new; bad paging is a 400 naming the bound
        given().queryParam("after", page.getLong("next")).get("/driver/calls").then().statusCode(200)
                .body("calls.size()", equalTo(0));
        given().queryParam("limit", 10_001).get("/driver/calls").then().statusCode(400)
                .body("error", containsString("10000"));
        given().queryParam("after", "x").get("/driver/calls").then().statusCode(400);
        // token-protected like the rest of /driver/
        dev.provbench.TestAuth.none();
        given().get("/driver/calls").then().statusCode(401);
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
