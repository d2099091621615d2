package dev.provbench.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.provbench.compare.Samples;
import dev.provbench.report.JUnitSchemas;
import dev.provbench.stats.Summary;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code provbench sweep --local}: the files, the figures from sweep.bench's own lines, the recommendation. */
@QuarkusMainTest
class SweepCommandTest {

    @Test
    void aLocalSweepWritesEveryFileAndItsFiguresAreSweepBenchs(QuarkusMainLauncher launcher, @TempDir Path tmp)
            throws Exception {
        Path dir = tmp.resolve("sweep");
        Path junit = tmp.resolve("junit.xml");
        LaunchResult r = launcher.launch("sweep", "--local", "--qps", "-1", "--provisioner-qps", "5,20", "--repeats",
                "3", "--threads", "4", "--cycles", "8", "--warmup", "0", "--local-api-latency", "0", "--seed", "11",
                // a window of 8 cycles, not of 2 s: on a busy machine a 2 s window can close before a cycle ends
                // (0 ops/s); 8 cycles always give a rate above 0, so this threshold passes on any machine and the
                // test still checks that --min-ops-per-sec is one of each run's JUnit cases
                "--min-ops-per-sec", "0.001", "--out", dir.toString(), "--junit", junit.toString());
        assertEquals(0, r.exitCode(), r.getOutput() + r.getErrorOutput());
        String err = r.getErrorOutput();
        assertTrue(err.contains("seed 11"), err);
        assertTrue(err.contains("sweep: run 2/6 · cell") && err.contains("ETA"), "progress with an ETA: " + err);
        for (String f : List.of("sweep.json", "sweep.bench", "sweep.md", "sweep.html")) {
            assertTrue(Files.size(dir.resolve(f)) > 0, f);
        }
        try (var runs = Files.list(dir.resolve("runs"))) {
            assertEquals(6, runs.count(), "every run's report");
        }
        JsonNode s = new ObjectMapper().readTree(dir.resolve("sweep.json").toFile());
        assertEquals("succeeded", s.get("state").asText());
        assertEquals(11, s.get("seed").asLong());
        assertEquals(2, s.get("cells").size());
        assertEquals(6, s.get("runs").size());
        // the figures of sweep.json are the statistics of sweep.bench's lines (what benchstat reads)
        Samples bench = Samples.parseText(Files.readString(dir.resolve("sweep.bench")));
        for (JsonNode cell : s.get("cells")) {
            assertEquals(3, cell.get("n").asInt());
            List<Double> v = bench.values().get(cell.get("name").asText()).get("ops/s");
            assertEquals(3, v.size());
            Summary sum = Summary.of(v.stream().mapToDouble(Double::doubleValue).toArray(), 0.95);
            assertEquals(sum.median(), cell.get("metrics").get("ops/s").get("median").asDouble(), 0);
            assertEquals(sum.min(), cell.get("metrics").get("ops/s").get("min").asDouble(), 0);
        }
        assertTrue(bench.values().containsKey("BenchmarkPVCChurn/provisioner-qps=20/provisioner-burst=40"),
                bench.values().keySet().toString());
        // the recommendation names a setting or says why not, and says 3 against 3 cannot be significant
        JsonNode rec = s.get("recommendations").get(0);
        assertTrue(rec.get("text").asText().startsWith("recommend --kube-api-qps="), rec.toString());
        assertTrue(s.get("warnings").toString().contains("cannot go below 0.100"), s.get("warnings").toString());
        assertTrue(r.getOutput().contains("recommend --kube-api-qps="), r.getOutput());
        assertTrue(Files.readString(dir.resolve("sweep.html")).contains("<svg"));
        String xml = Files.readString(junit);
        JUnitSchemas.validate(xml);
        assertTrue(xml.contains("tests=\"18\" failures=\"0\" errors=\"0\""), 
                "6 runs × 3 thresholds (always two, and --min-ops-per-sec): " + xml);

        // a sweep's directory compared with itself: nothing differs, exit 0
        LaunchResult same = launcher.launch("compare", dir.toString(), dir.toString(), "--fail-on-regression", "5");
        assertEquals(0, same.exitCode(), same.getOutput() + same.getErrorOutput());
        assertTrue(same.getOutput().contains("provisioner-qps=20"), same.getOutput());
    }

    @Test
    void badFlagsAreExitCode2NamingTheFlag(QuarkusMainLauncher launcher, @TempDir Path tmp) throws Exception {
        Map<List<String>, String> cases = Map.of(
                List.of("--local", "--repeats", "0"), "--repeats",
                List.of("--local", "--provisioner-qps", "5,x"), "--provisioner-qps",
                List.of("--local", "--provisioner-control", "deployment:a/b"), "--provisioner-control",
                List.of("--local", "--qps", "5,5"), "--qps",
                List.of("--local", "--duration", "forever"), "--duration",
                List.of("--storage-class", "sc", "--provisioner-qps", "5,10"), "--provisioner-control");
        for (var c : cases.entrySet()) {
            List<String> args = new java.util.ArrayList<>(List.of("sweep", "--out", tmp.resolve("x").toString()));
            args.addAll(c.getKey());
            LaunchResult r = launcher.launch(args.toArray(new String[0]));
            assertEquals(2, r.exitCode(), c.getKey() + ": " + r.getErrorOutput());
            assertTrue(r.getErrorOutput().contains("'" + c.getValue() + "'"), c.getKey() + ": " + r.getErrorOutput());
        }
        Path full = Files.createDirectories(tmp.resolve("full"));
        Files.writeString(full.resolve("sweep.json"), "{}");
        LaunchResult r = launcher.launch("sweep", "--local", "--out", full.toString());
        assertEquals(2, r.exitCode());
        assertTrue(r.getErrorOutput().contains("'--out'") && r.getErrorOutput().contains("not empty"),
                r.getErrorOutput());
    }
}
