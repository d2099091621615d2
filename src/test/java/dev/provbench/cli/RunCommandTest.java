package dev.provbench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provbench.report.JsonFormat;
import dev.provbench.measure.ClientRequests;
import dev.provbench.measure.DriverCalls;
import dev.provbench.measure.OperationStages;
import dev.provbench.measure.Operations;
import dev.provbench.measure.Resources;
import dev.provbench.report.RunReport;
import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@QuarkusMainTest
class RunCommandTest {

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "--threads;0", "--duration;soon", "--duration;0", "--cycles;0", "--op-timeout;-1s", "--size;lots",
            "--access-mode;ReadWriteSometimes", "--wait-mode;guess", "--qps;NaN", "--burst;-1", "--format;pdf",
            "--interval;0", "--min-ops-per-sec;-1", "--max-failures;-1", "--max-p99;fast",
            "--provisioner-log;/nonexistent/log", "--provisioner-pod;no-slash", "--provisioner-metrics;ftp://x",
            "--driver-url;not a url", "--kubeconfig;/nonexistent/kubeconfig", "--local-provisioner-reads;cache",
            "--local-provisioner-burst;-3", "--out;/dev/null/report.json", "--namespace;Not_A_Namespace",
            "--warmup;later", "--warmup;-5s", "--warmup-max;0", "--processes;apiserver", "--processes;x=y",
            "--threads;4097", "--duration;1000000h", "--duration;9999999999999999h", "--op-timeout;25h",
            "--warmup-max;48h", "--cycles;2000000000", "--qps;100001", "--burst;1000001", "--size;2Pi",
            "--interval;999ms", "--local-api-latency;2s", "--local-provisioner-qps;1e9",
            "--provisioner-container;Bad_Name", "--max-p99;25h", "--mode;sideways", "--count;5", "--population;-1", "--population;1000001",
            "--population-mode;sideways", "--population-mode;prebound"})
    void everyBadFlagIsExit2NamingIt(String flag, String value, QuarkusMainLauncher launcher) {
        LaunchResult r = launcher.launch("run", "--local", flag, value);
        assertEquals(2, r.exitCode(), r.getErrorOutput());
        assertTrue(r.getErrorOutput().contains(flag), "the message names " + flag + ": " + r.getErrorOutput());
    }

    /** What a bulk run refuses: each is exit 2 naming the flag (the churn settings it has no use for included). */
    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "--count;--mode bulk", "--count;--mode bulk --count 0", "--count;--mode bulk --count 1000001",
            "--cycles;--mode bulk --count 5 --cycles 3", "--warmup;--mode bulk --count 5 --warmup 5s",
            "--ramp;--mode bulk --count 5 --ramp 10s", "--wait-mode;--mode bulk --count 5 --wait-mode poll",
            "--namespaces;--mode bulk --count 5 --namespaces 0", "--namespaces;--namespaces 101",
            "--namespaces;--namespaces 10 --namespace aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"})
    void badBulkFlagsAreExit2NamingThem(String flag, String args, QuarkusMainLauncher launcher) {
        java.util.List<String> argv = new java.util.ArrayList<>(java.util.List.of("run", "--local"));
        argv.addAll(java.util.List.of(args.split(" ")));
        LaunchResult r = launcher.launch(argv.toArray(String[]::new));
        assertEquals(2, r.exitCode(), r.getErrorOutput());
        assertTrue(r.getErrorOutput().contains(flag), "the message names " + flag + ": " + r.getErrorOutput());
    }

    /**
     * A bulk wave on --local: every claim created, Bound, deleted and gone, and every count the same in the bulk
     * section, the op log, the client's requests and the driver's call log; the curve ends at the wave's count.
     */
    @Test
    void localBulkRunCountsAgreeAndNothingIsLeft(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("report.json");
        LaunchResult r = launcher.launch("run", "--local", "--mode", "bulk", "--count", "60", "--threads", "8",
                "--qps", "-1", "--local-provisioner-qps", "-1", "--format", "json", "--out", out.toString(),
                "--max-failures", "0");
        assertEquals(0, r.exitCode(), r.getErrorOutput());
        assertTrue(r.getErrorOutput().contains("bulk: 60 claims at once"), "the start line: " + r.getErrorOutput());
        RunReport report = dev.provbench.run.Measurements.parse(Files.readString(out));
        dev.provbench.measure.BulkWave.Bulk b = report.section(dev.provbench.measure.BulkWave.BULK);
        assertNotNull(b, "a bulk run has a bulk section");
        assertEquals(60, b.count());
        assertEquals(60, b.created());
        assertEquals(60, b.bound());
        assertEquals(60, b.deleted());
        assertEquals(60, b.gone());
        assertTrue(b.complete());
        assertTrue(b.toAllBoundSeconds() > 0 && b.toAllGoneSeconds() > 0, b.toString());
        assertTrue(b.createsPerSecond() > 0 && b.deletesPerSecond() > 0, b.toString());
        assertNotNull(b.createsSteadyPerSecond());
        long[] bound = b.curve().bound();
        assertEquals(60, bound[bound.length - 1], "the curve ends with every claim Bound");
        assertEquals(60, b.curve().released()[b.curve().released().length - 1]);
        assertEquals(60, b.curve().gone()[b.curve().gone().length - 1]);
        for (int i = 1; i < bound.length; i++) {
            assertTrue(bound[i] >= bound[i - 1], "a count never falls");
        }
        assertEquals(60, report.section(Operations.OPS).creates());
        assertEquals(60, report.section(Operations.OPS).deletes());
        assertEquals(60, report.section(ClientRequests.REQUESTS).byVerbResource().get("create persistentvolumeclaims"));
        assertEquals(60, report.section(ClientRequests.REQUESTS).byVerbResource().get("delete persistentvolumeclaims"));
        assertEquals(60, report.section(DriverCalls.DRIVER).createVolume());
        assertEquals(60, report.section(DriverCalls.DRIVER).deleteVolume());
        assertEquals(60, report.section(Operations.LATENCY).create().total().count());
        assertEquals("undetermined", report.section(Operations.WINDOW).verdict(), "a wave is not judged steady");
        assertTrue(report.cleanup().leftover().isEmpty());
        assertEquals(0, report.cleanup().deletedClaims(), "the wave deleted its own claims; cleanup found none");
        JsonNode n = new ObjectMapper().readTree(Files.readString(out));
        for (String path : new String[]{"/bulk/count", "/bulk/bound", "/bulk/gone", "/bulk/toAllBoundSeconds",
                "/bulk/toAllGoneSeconds", "/bulk/createsPerSecond", "/bulk/deletesPerSecond", "/bulk/curve/t",
                "/config/mode", "/config/count", "/scopes/bulk"}) {
            assertFalse(n.at(path).isMissingNode(), path);
        }
        assertEquals("bulk", n.at("/config/mode").asText());
    }

    /**
     * A bulk wave spread over three namespaces on --local: the namespaces made for the run, claim n in the
     * (n mod 3)-th (the records say where each op was), every count as without the spread, and the namespaces removed
     * with the claims.
     */
    @Test
    void localBulkRunSpreadOverNamespaces(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("report.json");
        Path records = dir.resolve("records.ndjson");
        LaunchResult r = launcher.launch("run", "--local", "--mode", "bulk", "--count", "30", "--namespaces", "3",
                "--namespace", "spread", "--threads", "8", "--qps", "-1", "--local-provisioner-qps", "-1", "--format",
                "json", "--out", out.toString(), "--records", records.toString(), "--max-failures", "0");
        assertEquals(0, r.exitCode(), r.getErrorOutput());
        assertTrue(r.getErrorOutput().contains("namespaces spread-0 … spread-2 (3 made for the run)"),
                "the start line: " + r.getErrorOutput());
        RunReport report = dev.provbench.run.Measurements.parse(Files.readString(out));
        dev.provbench.measure.BulkWave.Bulk b = report.section(dev.provbench.measure.BulkWave.BULK);
        assertEquals(30, b.bound());
        assertEquals(30, b.gone());
        assertTrue(report.cleanup().leftover().isEmpty(), report.cleanup().leftover().toString());
        java.util.Map<String, Integer> creates = new java.util.TreeMap<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(records)) {
            JsonNode n = json.readTree(line);
            if ("pvcCreateStages".equals(n.get("metricName").asText())) {
                String name = n.get("pvcName").asText();
                long i = Long.parseLong(name.substring(name.lastIndexOf('-') + 1));
                assertEquals("spread-" + (i % 3), n.get("namespace").asText(), name);
                creates.merge(n.get("namespace").asText(), 1, Integer::sum);
            }
        }
        assertEquals(java.util.Map.of("spread-0", 10, "spread-1", 10, "spread-2", 10), creates);
        assertEquals(3, new ObjectMapper().readTree(Files.readString(out)).at("/config/namespaces").asInt());
        var lists = report.section(dev.provbench.measure.ListCosts.LISTS).watches();
        assertEquals(java.util.List.of("persistentvolumes", "persistentvolumeclaims", "persistentvolumeclaims",
                "persistentvolumeclaims"), lists.stream().map(w -> w.resource()).toList(), "one PV watch, a claim watch "
                + "per namespace");
        assertEquals(java.util.Arrays.asList(null, "spread-0", "spread-1", "spread-2"),
                lists.stream().map(w -> w.namespace()).toList());
        assertTrue(lists.stream().allMatch(w -> w.first() != null && "first".equals(w.first().why())
                && w.first().pages() >= 1 && w.first().seconds() > 0), lists.toString());
    }

    /**
     * Churn beside a prebound population on --local: the window opens with all of it Bound, the run's figures are its
     * own (its creates only), and the population is removed after the run — claims and the PVs the tool wrote.
     */
    @Test
    void localRunBesideAPreboundPopulation(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("report.json");
        LaunchResult r = launcher.launch("run", "--local", "--population", "40", "--population-mode", "prebound",
                "--cycles", "12", "--threads", "4", "--qps", "-1", "--local-provisioner-qps", "-1", "--format", "json",
                "--out", out.toString(), "--max-failures", "0");
        assertEquals(0, r.exitCode(), r.getErrorOutput());
        assertTrue(r.getErrorOutput().contains("population: 40 prebound claims Bound"), r.getErrorOutput());
        RunReport report = dev.provbench.run.Measurements.parse(Files.readString(out));
        var p = report.section(dev.provbench.measure.StandingPopulation.POPULATION);
        assertNotNull(p);
        assertEquals(40, p.count());
        assertEquals("prebound", p.mode());
        assertEquals(40, p.created());
        assertEquals(0, p.existing());
        assertFalse(p.kept());
        assertEquals(40, p.removal().claimsDeleted());
        assertEquals(40, p.removal().volumesDeleted(), "the tool deletes the Retain PVs it wrote");
        assertTrue(p.removal().left().isEmpty());
        assertEquals(12, report.section(Operations.OPS).creates());
        // the driver never made nor deleted a population volume: its figures are the run's 12 cycles (and the
        // few in flight at the window's end)
        assertTrue(report.section(DriverCalls.DRIVER).totals().createVolume() < 40,
                report.section(DriverCalls.DRIVER).totals().toString());
        assertTrue(report.cleanup().leftover().isEmpty());
        var pvWatch = report.section(dev.provbench.measure.ListCosts.LISTS).watches().get(0);
        assertEquals("persistentvolumes", pvWatch.resource());
        assertTrue(pvWatch.first().items() >= 40, "the first LIST of PVs holds the population: " + pvWatch);
    }

    /** An --out whose directory is missing: a fresh one under a temporary directory, so no machine has it. */
    @Test
    void outInAMissingDirectoryIsExit2(QuarkusMainLauncher launcher, @TempDir Path dir) {
        Path missing = dir.resolve("missing");
        LaunchResult r = launcher.launch("run", "--local", "--out", missing.resolve("report.json").toString());
        assertEquals(2, r.exitCode(), r.getErrorOutput());
        assertTrue(r.getErrorOutput().contains("--out") && r.getErrorOutput().contains(missing + " does not exist"),
                r.getErrorOutput());
        assertFalse(Files.exists(missing));
    }

    @Test
    @Launch(value = {"run", "--duration", "1s"}, exitCode = 2)
    void storageClassIsRequiredAgainstACluster(LaunchResult r) {
        assertTrue(r.getErrorOutput().contains("--storage-class"), r.getErrorOutput());
    }

    @Test
    @Launch(value = {"run", "--storage-class", "Not_A_Class", "--duration", "1s"}, exitCode = 2)
    void storageClassMustBeAName(LaunchResult r) {
        assertTrue(r.getErrorOutput().contains("--storage-class"), r.getErrorOutput());
    }

    /**
     * A file that cannot be parsed as what the flag expects — a one-token file like a ServiceAccount token, or
     * broken YAML — is named in the error, and its content is never shown.
     */
    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {"%s", "apiVersion: v1\\nkind: Config\\nclusters: [%s"})
    void noMessageShowsTheContentOfAFile(String template, QuarkusMainLauncher launcher, @TempDir Path dir)
            throws Exception {
        String marker = "MARKER" + Long.toHexString(System.nanoTime()) + "eyJhbGciOiJSUzI1NiJ9";
        Path file = dir.resolve("token");
        Files.writeString(file, template.replace("\\n", "\n").formatted(marker));
        LaunchResult r = launcher.launch("run", "--kubeconfig", file.toString(), "--storage-class", "x",
                "--duration", "5s", "--audit-log", file.toString(), "--provisioner-log", file.toString(),
                "--format", "json");
        assertEquals(3, r.exitCode(), r.getErrorOutput());
        assertFalse(r.getOutput().contains(marker), r.getOutput());
        assertFalse(r.getErrorOutput().contains(marker), r.getErrorOutput());
        assertTrue(r.getErrorOutput().contains(file.toString()), "names the file: " + r.getErrorOutput());
    }

    @Test
    @Launch(value = {"run", "--bogus"}, exitCode = 2)
    void unknownFlag(LaunchResult r) {
        assertTrue(r.getErrorOutput().contains("--bogus"), r.getErrorOutput());
    }

    @Test
    void unreachableClusterIsExit3(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path kubeconfig = dev.provbench.TestKubeconfig.unreachable(dir);
        LaunchResult r = launcher.launch("run", "--kubeconfig", kubeconfig.toString(), "--storage-class", "x",
                "--duration", "5s");
        assertEquals(3, r.exitCode(), r.getErrorOutput());
        // the preflight finds out, before the run's first request, naming the cluster
        assertTrue(r.getErrorOutput().contains("preflight: the cluster at http://127.0.0.1:1/ did not answer"),
                r.getErrorOutput());
    }

    @Test
    void localRunCountsAgreeAndNothingIsLeft(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("report.json");
        Path records = dir.resolve("records.ndjson");
        LaunchResult r = launcher.launch("run", "--local", "--cycles", "30", "--threads", "6", "--qps", "-1",
                "--local-provisioner-qps", "-1", "--format", "json", "--out", out.toString(), "--max-failures", "0",
                "--records", records.toString());
        assertEquals(0, r.exitCode(), r.getErrorOutput());
        assertTrue(r.getOutput().contains("CREATES / DELETES") || r.getOutput().contains("creates / deletes"),
                "the table goes to stdout: " + r.getOutput());
        String json = Files.readString(out);
        RunReport report = dev.provbench.run.Measurements.parse(json);
        assertEquals(RunReport.SCHEMA_VERSION, report.schemaVersion());
        assertEquals("local", report.mode());
        assertEquals(30, report.section(Operations.OPS).creates());
        assertEquals(30, report.section(Operations.OPS).deletes());
        assertEquals(0, report.section(Operations.OPS).failures());
        assertEquals(Boolean.TRUE, report.passed());
        // the driver saw exactly the volumes the tool created and deleted (no op was in flight at the end)
        assertEquals(30, report.section(DriverCalls.DRIVER).createVolume());
        assertEquals(30, report.section(DriverCalls.DRIVER).deleteVolume());
        // informer mode: waiting never GETs
        assertFalse(report.section(ClientRequests.REQUESTS).byVerb().containsKey("get"), report.section(ClientRequests.REQUESTS).byVerb().toString());
        assertEquals(30, report.section(ClientRequests.REQUESTS).byVerbResource().get("create persistentvolumeclaims"));
        assertEquals(30, report.section(ClientRequests.REQUESTS).byVerbResource().get("delete persistentvolumeclaims"));
        assertTrue(report.section(Operations.LATENCY).create().total().count() == 30 && report.section(Operations.LATENCY).create().pipeline().p50() > 0);
        assertTrue(report.cleanup().leftover().isEmpty());
        assertNotNull(report.section(ClientRequests.COMPONENTS).get("provisioner (stand-in)"));
        // the stable names scripts rely on
        JsonNode n = new ObjectMapper().readTree(json);
        for (String path : new String[]{"/ops/creates", "/ops/deletes", "/ops/failures", "/ops/opsPerSecond",
                "/ops/cyclesPerSecond", "/window/seconds", "/window/warmupSeconds", "/window/verdict",
                "/latency/create/pipeline/p50", "/latency/create/queue/p99", "/latency/create/total/p999",
                "/latency/delete/pipeline/max", "/requests/total", "/requests/byVerb", "/requests/perOp",
                "/requests/totalIncludingCleanup", "/throttling/throttled", "/throttling/over50ms",
                "/throttling/over1s", "/throttling/waitSeconds", "/driver/createVolume", "/driver/deleteVolume",
                "/driver/totals/createVolume", "/driver/agreement/basis", "/window/sharedWith/shared",
                "/resources/tool/cpuCoresIdle", "/resources/tool/cpuCoresWindow", "/resources/tool/cpuSecondsPerOp",
                "/resources/tool/rssBytesIdle", "/resources/tool/rssBytesPeak", "/timeseries/0/phase",
                "/config/threads", "/config/duration", "/config/qps", "/config/ramp", "/config/standIn/qps",
                "/config/standIn/reads"}) {
            assertFalse(n.at(path).isMissingNode(), path);
        }
        assertEquals(5, n.at("/schemaVersion").asInt());
        // one tenant: the driver's figures are the run's own volumes and agree with its totals; alone, and said so
        DriverCalls.Driver drv = report.section(DriverCalls.DRIVER);
        assertEquals("run", drv.scope());
        assertEquals(30, drv.totals().createVolume());
        assertEquals(0, drv.otherCalls());
        assertEquals("own volumes", drv.agreement().basis());
        dev.provbench.measure.SharedCluster.SharedWith sw = report.section(dev.provbench.measure.SharedCluster.SHARED_WITH);
        assertEquals(Boolean.FALSE, sw.shared(), sw.toString());
        assertEquals(0L, sw.pvsCreated());
        assertTrue(n.at("/scopes/resources").asText().startsWith("shared"), n.at("/scopes").toString());
        assertTrue(n.at("/scopes/driver").asText().startsWith("own"), n.at("/scopes").toString());
        assertEquals("lister", n.at("/config/standIn/reads").asText(), "the checked configuration, serialized");
        // where the time goes: every stage of the 30 creates and 30 deletes (the driver is in this process),
        // partitioning each op: without the token wait the stages' means add up to the pipeline's mean
        OperationStages.Stages st = report.section(OperationStages.STAGES);
        assertNotNull(st, "latency.stages");
        assertEquals(7, st.create().size());
        assertEquals(7, st.delete().size());
        assertEquals("CreateVolume received", st.create().get(3).stage());
        assertEquals("PV gone", st.delete().get(6).stage());
        assertTrue(st.create().stream().allMatch(x -> x.n() == 30), st.create().toString());
        assertTrue(st.delete().stream().allMatch(x -> x.n() == 30), st.delete().toString());
        assertEquals("driver", st.create().get(4).clocks());
        assertFalse(st.twoClocks());
        double createStages = st.create().stream().skip(1).mapToDouble(OperationStages.Stage::mean).sum();
        double deleteStages = st.delete().stream().skip(1).mapToDouble(OperationStages.Stage::mean).sum();
        assertEquals(report.section(Operations.LATENCY).create().pipeline().mean(), createStages,
                0.01 * report.section(Operations.LATENCY).create().pipeline().mean());
        assertEquals(report.section(Operations.LATENCY).delete().pipeline().mean(), deleteStages,
                0.01 * report.section(Operations.LATENCY).delete().pipeline().mean());
        assertNotNull(st.dominant().get("create"));
        assertNotNull(st.dominant().get("delete"));
        // --records: one line per completed op, with kube-burner's names where they mean the same
        List<String> lines = Files.readAllLines(records);
        assertEquals(60, lines.size());
        JsonNode first = new ObjectMapper().readTree(lines.get(0));
        assertEquals(report.runId(), first.path("uuid").asText());
        assertTrue(first.path("pvcName").asText().startsWith("pb-" + report.runId()), first.toString());
        assertFalse(first.at("/stamps/bound").isMissingNode() && first.at("/stamps/pvGone").isMissingNode(),
                first.toString());
        // one denominator for every per-op figure: the window's ops
        assertEquals(Math.round(report.section(ClientRequests.REQUESTS).total() / 60.0 * 1000) / 1000.0, report.section(ClientRequests.REQUESTS).perOp());
        report.section(ClientRequests.COMPONENTS).values().forEach(c -> assertEquals(Math.round(c.total() / 60.0 * 1000) / 1000.0,
                c.perOp()));
        assertTrue(report.section(Resources.RESOURCES).get("tool").rssBytesPeak() > 10_000_000L);
        assertEquals("ok", report.section(DriverCalls.DRIVER).agreement().status(), report.section(DriverCalls.DRIVER).toString());
        // every attempt has one outcome, for the tool and for each stand-in
        assertEquals(report.section(ClientRequests.REQUESTS).total(), report.section(ClientRequests.REQUESTS).byCode().values().stream()
                .mapToLong(Long::longValue).sum(), report.section(ClientRequests.REQUESTS).toString());
        report.section(ClientRequests.COMPONENTS).values().forEach(c -> assertEquals(c.total(), c.byCode().values().stream()
                .mapToLong(Long::longValue).sum(), c.toString()));
        // --cycles: no warm-up, so the window holds every cycle and the time series is all window
        assertEquals(0, report.section(Operations.WINDOW).warmupSeconds(), 0.01);
        assertTrue(report.timeseries().stream().allMatch(i -> i.phase().startsWith("window")),
                report.timeseries().toString());
        long seriesOps = report.timeseries().stream().mapToLong(i -> i.creates() + i.deletes()).sum();
        assertEquals(60, seriesOps);
        // the JSON round trip is lossless
        assertEquals(report, dev.provbench.run.Measurements.parse(new JsonFormat().render(report)));
    }

    @Test
    void aWindowWithoutWarmupAtDefaultsIsNotSteady(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("r.json");
        LaunchResult r = launcher.launch("run", "--local", "--warmup", "0", "--duration", "20s", "--format", "json",
                "--out", out.toString());
        assertEquals(0, r.exitCode(), r.getErrorOutput());
        RunReport report = dev.provbench.run.Measurements.parse(Files.readString(out));
        assertNotEquals("steady", report.section(Operations.WINDOW).verdict(), report.section(Operations.WINDOW).reason());
        assertEquals(0, report.section(Operations.WINDOW).warmupSeconds(), 0.01);
        assertTrue(report.warnings().stream().anyMatch(w -> w.contains("not a steady state")
                || w.contains("cannot tell whether it is a steady state")), report.warnings().toString());
        assertTrue(r.getOutput().contains("steady state") && (r.getOutput().contains("NO — not steady")
                || r.getOutput().contains("CANNOT TELL — undetermined")), r.getOutput());
        assertTrue(r.getErrorOutput().contains("window ]") || r.getErrorOutput().contains("window]")
                || r.getErrorOutput().contains(" window "), "progress lines name the phase: " + r.getErrorOutput());
    }

    @Test
    void pollModeGetsAndThresholdFailureIsExit1(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path junit = dir.resolve("junit.xml");
        LaunchResult r = launcher.launch("run", "--local", "--cycles", "4", "--threads", "2", "--qps", "-1",
                "--local-provisioner-qps", "-1", "--wait-mode", "poll", "--format", "json",
                "--min-ops-per-sec", "1000000", "--junit", junit.toString());
        assertEquals(1, r.exitCode(), r.getErrorOutput());
        String xml = Files.readString(junit);
        dev.provbench.report.JUnitSchemas.validate(xml);
        assertTrue(xml.contains("failures=\"1\" errors=\"0\"") && xml.contains("<failure message=\"min-ops-per-sec: "
                + "actual "), "the threshold that failed, with its numbers: " + xml);
        assertTrue(r.getOutput().contains("\"get\""), "poll mode GETs: " + r.getOutput());
        assertTrue(r.getOutput().contains("\"failures\" : 0"), "poll mode waits work: " + r.getOutput());
        assertTrue(r.getOutput().contains("\"passed\" : false"), r.getOutput());
    }

    @Test
    void throttlingIsCountedWithTheDefaultBucket(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path out = dir.resolve("r.json");
        LaunchResult r = launcher.launch("run", "--local", "--cycles", "16", "--threads", "16", "--ramp", "0",
                "--format", "json", "--out", out.toString());
        assertEquals(0, r.exitCode(), r.getErrorOutput());
        RunReport report = dev.provbench.run.Measurements.parse(Files.readString(out));
        // 16 creates at once (--ramp 0) against a 5/10 bucket: at least 6 had to wait
        assertTrue(report.section(ClientRequests.THROTTLING).throttled() >= 6, "throttled " + report.section(ClientRequests.THROTTLING).throttled());
        assertTrue(report.section(ClientRequests.THROTTLING).waitSeconds() > 0);
        assertEquals(16, report.section(Operations.OPS).creates());
        // the tool's own limiter shows as queue time, not as pipeline time
        Operations.OpLatency create = report.section(Operations.LATENCY).create();
        assertTrue(create.queue().max() > 0, create.toString());
        assertTrue(create.total().max() >= create.pipeline().max(), create.toString());
        assertTrue(create.total().p50() >= create.queue().p50(), create.toString());
    }
}
