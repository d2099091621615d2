package dev.provbench.api;

import dev.provbench.RunBounds;
import dev.provbench.run.RunExecution;
import dev.provbench.run.RunLauncher;
import dev.provbench.run.RunRegistry;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

@QuarkusTest
class RunsResourceTest {
    /** A quick local run: no rate limits anywhere, a fixed number of cycles. */
    static final String QUICK = "{\"local\": true, \"cycles\": %d, \"threads\": 4, \"qps\": -1, "
            + "\"localProvisionerQps\": -1, \"interval\": \"1s\"%s}";

    @Inject
    RunLauncher launcher;

    /** The runs this class's tests started: each test ends its own (abort + await), even when it fails. */
    static final List<String> started = new java.util.concurrent.CopyOnWriteArrayList<>();

    @org.junit.jupiter.api.AfterEach
    void endOwnRunsAndNoBearer() throws InterruptedException {
        try {
            for (String id : started) {
                end(id);
            }
        } finally {
            started.clear();
            dev.provbench.TestAuth.none();
        }
    }

    @BeforeEach
    void serve() {
        dev.provbench.TestAuth.bearer();
        launcher.enable();
    }

    static String post(String body, int status) {
        String answer = given().contentType(ContentType.JSON).body(body).post("/api/runs").then().statusCode(status)
                .extract().asString();
        if (status == 202) {
            started.add(io.restassured.path.json.JsonPath.from(answer).getString("id"));
        }
        return answer;
    }

    static RunExecution execution(String id) {
        return Arc.container().instance(RunRegistry.class).get().get(id)
                .orElseThrow(() -> new AssertionError("no run " + id + " in the registry"));
    }

    /**
     * Polls GET /api/runs/{id} until its state is one that has ended, for as long as the run's own limits allow
     * ({@link RunBounds}: the whole run, or from now on an abort's end once one was asked for). A run past its
     * bound is aborted and awaited before the test fails, so it cannot outlive the test.
     */
    static Response awaitEnd(String id) throws InterruptedException {
        RunExecution e = execution(id);
        var config = e.checked().config();
        Duration bound = e.abortRequested() ? RunBounds.afterAbort(config) : RunBounds.whole(config);
        Response r = poll(id, bound);
        if (r == null) {
            e.abort();
            poll(id, RunBounds.afterAbort(config));
            fail("run " + id + " did not end within its own bound of " + bound.toSeconds() + " s; aborted it");
        }
        return r;
    }

    /** Aborts run {@code id} if it still runs, and waits for its end. */
    static void end(String id) throws InterruptedException {
        RunExecution e = execution(id);
        e.abort();
        if (poll(id, RunBounds.afterAbort(e.checked().config())) == null) {
            fail("run " + id + " did not end within " + RunBounds.afterAbort(e.checked().config()).toSeconds()
                    + " s of its abort");
        }
    }

    /** The run's ended state, or null when {@code bound} passed first. */
    private static Response poll(String id, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            Response r = given().get("/api/runs/" + id);
            assertEquals(200, r.statusCode(), r.asString());
            String state = r.path("state");
            if (List.of("succeeded", "failed", "aborted").contains(state)) {
                return r;
            }
            assertTrue(List.of("pending", "running").contains(state), state);
            Thread.sleep(100);
        }
        return null;
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "{\"threads\": 0, \"local\": true};threads",
            "{\"threads\": \"many\", \"local\": true};threads",
            "{\"threads\": 1.5, \"local\": true};threads",
            "{\"qsp\": 5, \"local\": true};qsp",
            "{\"format\": \"json\", \"local\": true};format",
            "{\"duration\": \"soon\", \"local\": true};duration",
            "{\"opTimeout\": \"0s\", \"local\": true};opTimeout",
            "{\"cycles\": 0, \"local\": true};cycles",
            "{\"size\": \"lots\", \"local\": true};size",
            "{\"accessMode\": \"ReadWriteSometimes\", \"local\": true};accessMode",
            "{\"waitMode\": \"guess\", \"local\": true};waitMode",
            "{\"qps\": 5, \"burst\": 0, \"local\": true};burst",
            "{\"burst\": null, \"local\": true};burst",
            "{\"namespace\": \"Not_A_Namespace\", \"local\": true};namespace",
            "{\"localProvisionerReads\": \"cache\", \"local\": true};localProvisionerReads",
            "{\"maxP99\": \"fast\", \"local\": true};maxP99",
            "{\"minOpsPerSec\": -1, \"local\": true};minOpsPerSec",
            "{\"provisionerLog\": \"/nonexistent/log\", \"local\": true};provisionerLog",
            "{\"provisionerPod\": \"no-slash\", \"local\": true};provisionerPod",
            "{\"provisionerMetrics\": \"ftp://x\", \"local\": true};provisionerMetrics",
            "{\"driverUrl\": \"not a url\", \"local\": true};driverUrl",
            "{\"kubeconfig\": \"/nonexistent/kubeconfig\", \"storageClass\": \"x\"};kubeconfig",
            "{\"duration\": \"1m\"};storageClass",
            // every input is bounded (docs/load.md, provbench.limits.*)
            "{\"threads\": 100000, \"local\": true};threads",
            "{\"duration\": \"1000000h\", \"local\": true};duration",
            "{\"duration\": \"9999999999999999h\", \"local\": true};duration",
            "{\"opTimeout\": \"25h\", \"local\": true};opTimeout",
            "{\"warmup\": \"25h\", \"local\": true};warmup",
            "{\"cycles\": 2000000000, \"local\": true};cycles",
            "{\"qps\": 200000, \"local\": true};qps",
            "{\"burst\": 2000000, \"local\": true};burst",
            "{\"localProvisionerQps\": 1e9, \"local\": true};localProvisionerQps",
            "{\"size\": \"2Pi\", \"local\": true};size",
            "{\"interval\": \"100ms\", \"local\": true};interval",
            "{\"localApiLatency\": \"2s\", \"local\": true};localApiLatency",
            "{\"storageClass\": \"Not_A_Class\"};storageClass",
            "{\"provisionerContainer\": \"Bad Name\", \"local\": true};provisionerContainer",
            // the server's files, processes and URLs are not the caller's to name
            "{\"kubeconfig\": \"/etc/hostname\", \"storageClass\": \"x\"};kubeconfig",
            "{\"auditLog\": \"/etc/hostname\", \"local\": true};auditLog",
            "{\"provisionerLog\": \"/etc/hostname\", \"local\": true};provisionerLog",
            "{\"processes\": \"init=1\", \"local\": true};processes",
            "{\"driverUrl\": \"http://127.0.0.1:1/\", \"local\": true};driverUrl",
            "{\"provisionerMetrics\": \"http://169.254.169.254/\", \"local\": true};provisionerMetrics"})
    void everyBadFieldIs400NamingIt(String body, String field) {
        given().contentType(ContentType.JSON).body(body).post("/api/runs").then().statusCode(400)
                .contentType(ContentType.JSON).body("field", equalTo(field)).body("error", containsString(field));
        given().get("/api/runs").then().statusCode(200); // nothing started
    }

    @Test
    void aBodyOver64KiBIsRefused() {
        String big = "{\"local\": true, \"namespace\": \"" + "a".repeat(70 * 1024) + "\"}";
        given().contentType(ContentType.JSON).body(big).post("/api/runs").then().statusCode(413);
    }

    @Test
    void notJsonOrNotAnObjectIs400() {
        given().contentType(ContentType.JSON).body("{not json").post("/api/runs").then().statusCode(400)
                .body("error", containsString("not JSON"));
        given().contentType(ContentType.JSON).body("[1, 2]").post("/api/runs").then().statusCode(400)
                .body("error", containsString("not a JSON object"));
        given().contentType(ContentType.JSON).body("{\"local\": true} trailing").post("/api/runs").then()
                .statusCode(400);
    }

    @Test
    void runToTheEndAndEveryReportFormat() throws Exception {
        Response accepted = given().contentType(ContentType.JSON).body(String.format(QUICK, 30, ""))
                .post("/api/runs");
        assertEquals(202, accepted.statusCode(), accepted.asString());
        String id = accepted.path("id");
        assertNotNull(id);
        started.add(id);
        assertTrue(accepted.header("Location").endsWith("/api/runs/" + id), accepted.header("Location"));
        assertTrue(List.of("pending", "running").contains(accepted.<String>path("state")));

        given().get("/api/runs").then().statusCode(200).body("id", hasItem(id));
        Response ended = awaitEnd(id);
        assertEquals("succeeded", ended.path("state"), ended.asString());
        assertEquals(0, (int) ended.path("exitCode"));
        assertEquals(30, (int) ended.path("progress.creates"));
        assertEquals(30, (int) ended.path("progress.deletes"));
        assertEquals(4, (int) ended.path("request.threads"), "the request as it was understood");
        assertEquals(true, ended.path("request.local"));

        given().get("/api/runs/" + id + "/report").then().statusCode(200).contentType(ContentType.JSON)
                .body("runId", equalTo(id)).body("ops.creates", equalTo(30)).body("ops.deletes", equalTo(30))
                .body("cleanup.leftover.size()", equalTo(0)).body("driver.createVolume", equalTo(30));
        given().get("/api/runs/" + id + "/report?format=markdown").then().statusCode(200)
                .contentType(startsWith("text/markdown")).body(startsWith("## provbench run " + id));
        given().get("/api/runs/" + id + "/report?format=bench").then().statusCode(200)
                .contentType(startsWith("text/plain")).body(containsString("Benchmark"));
        String html = given().get("/api/runs/" + id + "/report?format=html").then().statusCode(200)
                .contentType(startsWith("text/html")).extract().asString();
        assertTrue(html.contains("<svg id=\"ops-chart\"") && html.contains("class=\"series\""), html);
        given().get("/api/runs/" + id + "/report?format=pdf").then().statusCode(400)
                .body("field", equalTo("format")).body("error", containsString("pdf"));
        given().get("/api/runs/" + id).then().body("links.html", equalTo("/api/runs/" + id + "/report?format=html"));

        given().delete("/api/runs/" + id).then().statusCode(409).body("error", containsString("already ended"));
    }

    /**
     * The scale options over the API as on the command line: a local bulk wave spread over two namespaces beside a
     * prebound population; the report says so, and nothing of it is left.
     */
    @Test
    void aBulkWaveOverNamespacesBesideAPopulationOverTheApi() throws Exception {
        Response accepted = given().contentType(ContentType.JSON).body("{\"local\": true, \"mode\": \"bulk\", "
                + "\"count\": 20, \"namespaces\": 2, \"population\": 30, \"populationMode\": \"prebound\", "
                + "\"threads\": 4, \"qps\": -1, \"localProvisionerQps\": -1, \"interval\": \"1s\"}").post("/api/runs");
        assertEquals(202, accepted.statusCode(), accepted.asString());
        String id = accepted.path("id");
        started.add(id);
        Response ended = awaitEnd(id);
        assertEquals("succeeded", ended.path("state"), ended.asString());
        given().get("/api/runs/" + id + "/report").then().statusCode(200)
                .body("config.namespaces", equalTo(2)).body("config.mode", equalTo("bulk"))
                .body("bulk.bound", equalTo(20)).body("bulk.gone", equalTo(20))
                .body("population.count", equalTo(30)).body("population.mode", equalTo("prebound"))
                .body("population.removal.claimsDeleted", equalTo(30))
                .body("lists.watches.size()", equalTo(3)).body("cleanup.leftover.size()", equalTo(0));
    }

    @Test
    void oneRunAtATimeAndAbortCleansUp() throws Exception {
        String body = post("{\"local\": true, \"duration\": \"5m\", \"threads\": 8, \"interval\": \"1s\"}", 202);
        String id = io.restassured.path.json.JsonPath.from(body).getString("id");
        try {
            given().contentType(ContentType.JSON).body(String.format(QUICK, 5, "")).post("/api/runs").then()
                    .statusCode(409).body("activeRun", equalTo(id)).body("error", containsString(id));
            // live progress while it runs
            long deadline = System.nanoTime() + 60_000_000_000L;
            Response live;
            do {
                Thread.sleep(200);
                live = given().get("/api/runs/" + id);
            } while ((live.path("progress") == null || live.<Integer>path("progress.creates") < 3
                    || live.<List<?>>path("progress.samples").size() < 2) && System.nanoTime() < deadline);
            assertEquals("running", live.path("state"), live.asString());
            assertTrue(live.<Integer>path("progress.creates") >= 3, live.asString());
            assertEquals(300.0f, (float) live.<Float>path("progress.plannedSeconds"));
            given().get("/api/runs/" + id + "/report").then().statusCode(409)
                    .body("error", containsString("running"));
        } finally {
            given().delete("/api/runs/" + id).then().statusCode(202).body("id", equalTo(id));
        }
        Response ended = awaitEnd(id);
        assertEquals("aborted", ended.path("state"), ended.asString());
        assertEquals(3, (int) ended.path("exitCode"));
        given().get("/api/runs/" + id + "/report").then().statusCode(200)
                .body("cleanup.leftover.size()", equalTo(0));
        // its end frees the slot
        String next = post(String.format(QUICK, 2, ""), 202);
        awaitEnd(io.restassured.path.json.JsonPath.from(next).getString("id"));
    }

    /**
     * The largest run the limits allow, aborted while its workers queue at the buckets and wait for Bound: it
     * reaches `aborted` within what its own limits allow after an abort ({@link RunBounds#afterAbort}: the abort
     * grace, the workers' interrupt, the cleanup timeout, a stated margin), and leaves nothing. How fast that is
     * on a quiet machine is a benchmark's figure ({@code hack/bench/abort}, docs/benchmarks.md), not this test's.
     */
    @Test
    void anAbortOfTheLargestRunIsBounded() throws Exception {
        String body = post("{\"local\": true, \"threads\": 4096, \"duration\": \"10m\", \"warmup\": \"0\", "
                + "\"ramp\": \"0\", \"qps\": -1, \"localProvisionerQps\": -1, \"localApiLatency\": \"0\", \"abortGrace\": \"3s\", "
                + "\"opTimeout\": \"30s\", \"cleanupTimeout\": \"10m\", \"interval\": \"1s\"}", 202);
        String id = io.restassured.path.json.JsonPath.from(body).getString("id");
        // its cleanup deletes ~1,100 claims through the serial stand-ins: ~30 s on a quiet machine (hack/bench/abort),
        // several times that on a busy one, so a cleanup timeout no busy machine reaches, and the bound follows it
        Duration bound = RunBounds.afterAbort(execution(id).checked().config());
        // until a thousand are in flight; on a machine too busy for that, the abort comes at the bound anyway
        long deadline = System.nanoTime() + RunBounds.MARGIN.toNanos() * 2;
        Response live;
        do {
            Thread.sleep(200);
            live = given().get("/api/runs/" + id);
        } while ((live.path("progress") == null || live.<Integer>path("progress.inFlight") < 1000)
                && System.nanoTime() < deadline);
        long abortAt = System.nanoTime();
        given().delete("/api/runs/" + id).then().statusCode(202);
        Response ended = awaitEnd(id);
        double seconds = (System.nanoTime() - abortAt) / 1e9;
        assertEquals("aborted", ended.path("state"), ended.asString());
        assertTrue(seconds <= bound.toSeconds(), "aborted after " + seconds + " s, bound " + bound.toSeconds() + " s");
        given().get("/api/runs/" + id + "/report").then().statusCode(200)
                .body("cleanup.leftover.size()", equalTo(0));
        // once its end is visible the slot is free: the tear-down of its thousands of objects came before
        String next = post(String.format(QUICK, 2, ""), 202);
        assertEquals("succeeded", awaitEnd(io.restassured.path.json.JsonPath.from(next).getString("id")).path("state"));
    }

    @Test
    void aThresholdThatFailsMakesTheRunFailed() throws Exception {
        String body = post(String.format(QUICK, 4, ", \"minOpsPerSec\": 1000000"), 202);
        Response ended = awaitEnd(io.restassured.path.json.JsonPath.from(body).getString("id"));
        assertEquals("failed", ended.path("state"));
        assertEquals(1, (int) ended.path("exitCode"));
        given().get(ended.<String>path("links.json")).then().statusCode(200).body("passed", equalTo(false));
    }

    @Test
    void aRunThatCannotStartIsFailedWithoutAReport(@TempDir Path dir) throws Exception {
        // the kubeconfig is the server's setting (here fabric8's `kubeconfig` system property), never the caller's
        Path kubeconfig = dev.provbench.TestKubeconfig.unreachable(dir);
        String before = System.setProperty("kubeconfig", kubeconfig.toString());
        Response ended;
        String id;
        try {
            String body = post("{\"storageClass\": \"x\"}", 202);
            id = io.restassured.path.json.JsonPath.from(body).getString("id");
            ended = awaitEnd(id);
        } finally {
            if (before == null) {
                System.clearProperty("kubeconfig");
            } else {
                System.setProperty("kubeconfig", before);
            }
        }
        assertEquals("failed", ended.path("state"));
        assertEquals(3, (int) ended.path("exitCode"));
        assertTrue(ended.<String>path("message").contains("127.0.0.1:1"), ended.asString());
        given().get("/api/runs/" + id + "/report").then().statusCode(404)
                .body("error", containsString("without a report"));
    }

    @Test
    void theGrafanaDashboardChartsOnlyMetricsProvbenchServes() throws Exception {
        String body = post(String.format(QUICK, 4, ""), 202);
        awaitEnd(io.restassured.path.json.JsonPath.from(body).getString("id"));
        String scrape = given().get("/q/metrics").then().statusCode(200).extract().asString();
        java.util.Set<String> served = new java.util.HashSet<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)").matcher(scrape);
        while (m.find()) {
            served.add(m.group(1));
        }
        var dashboard = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(Path.of("kubernetes/grafana/provbench-dashboard.json").toFile());
        java.util.Set<String> charted = new java.util.TreeSet<>();
        for (var panel : dashboard.get("panels")) {
            for (var target : panel.path("targets")) {
                java.util.regex.Matcher n = java.util.regex.Pattern.compile("\\b(provbench_[a-z_]+)")
                        .matcher(target.get("expr").asText());
                while (n.find()) {
                    charted.add(n.group(1));
                }
            }
        }
        assertTrue(charted.size() >= 10, charted.toString());
        // the injected-faults counter has no series until a fault has been injected
        charted.remove("provbench_csi_injected_faults_total");
        charted.removeAll(served);
        assertEquals(java.util.Set.of(), charted, "charted but not served");
    }

    @Test
    void unknownRunsAre404() {
        given().get("/api/runs/nope").then().statusCode(404).body("error", containsString("nope"));
        given().get("/api/runs/nope/report").then().statusCode(404);
        given().delete("/api/runs/nope").then().statusCode(404);
    }

    @Test
    void onlyServeStartsRuns() {
        launcher.disable();
        try {
            given().contentType(ContentType.JSON).body("{\"local\": true}").post("/api/runs").then().statusCode(503)
                    .body("error", containsString("provbench serve"));
        } finally {
            launcher.enable();
        }
    }

    @Test
    void openApiDocumentDescribesTheRunsApi() {
        given().accept(ContentType.JSON).get("/q/openapi?format=json").then().statusCode(200)
                .body("paths", org.hamcrest.Matchers.hasKey("/api/runs"))
                .body("paths", org.hamcrest.Matchers.hasKey("/api/runs/{id}"))
                .body("paths", org.hamcrest.Matchers.hasKey("/api/runs/{id}/report"))
                .body("paths.'/api/runs'.post.responses", org.hamcrest.Matchers.hasKey("409"))
                .body("components.schemas.RunRequest.properties", org.hamcrest.Matchers.hasKey("opTimeout"))
                .body("paths", org.hamcrest.Matchers.not(org.hamcrest.Matchers.hasKey("/q/openapi")))
                .body("paths.'/driver/limits'.put.tags", org.hamcrest.Matchers.contains("driver"))
                .body("info.title", org.hamcrest.Matchers.equalTo("provbench API"));
        // the extension's ways to ask for a format: YAML by default, JSON by Accept, by file name, by ?format
        given().get("/q/openapi").then().statusCode(200).contentType(startsWith("application/yaml"))
                .body(containsString("openapi: 3.1.0")).body(containsString("/api/runs/{id}/report:"));
        given().accept("application/json").get("/q/openapi").then().statusCode(200)
                .contentType(startsWith("application/json")).body("openapi", org.hamcrest.Matchers.equalTo("3.1.0"));
        given().get("/q/openapi.json").then().statusCode(200).contentType(startsWith("application/json"));
        given().accept(ContentType.JSON).get("/q/openapi.yaml").then().statusCode(200)
                .contentType(startsWith("application/yaml"));
        given().accept(ContentType.JSON).get("/q/openapi?format=yaml").then().statusCode(200)
                .contentType(startsWith("application/yaml"));
        given().get("/q/openapi.txt").then().statusCode(404);
    }

    @Test
    void livePageIsServed() {
        given().get("/").then().statusCode(200).contentType(startsWith("text/html"))
                .body(containsString("id=\"ops-chart\"")).body(containsString("/app.js"));
        given().get("/app.js").then().statusCode(200).body(containsString("/api/runs"));
        assertFalse(given().get("/app.css").asString().isEmpty());
        given().get("/api/runs").then().statusCode(200).body("id", org.hamcrest.Matchers.everyItem(
                matchesPattern("[0-9a-f]{8}")));
    }
}
