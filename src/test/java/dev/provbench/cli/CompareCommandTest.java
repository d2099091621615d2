package dev.provbench.cli;

import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code provbench compare}: benchstat's question, on provbench's own outputs, with a regression gate. */
@QuarkusMainTest
class CompareCommandTest {
    private static final String UNITS = "Unit ops/s better=higher\nUnit create-pipeline-p99-ms better=lower\n";

    /** One file of Go benchmark lines, one line per sample. */
    private static Path bench(Path dir, String name, double[] opsPerSecond, double[] p99) throws Exception {
        StringBuilder b = new StringBuilder("goos: linux\npkg: provbench\n");
        for (int i = 0; i < opsPerSecond.length; i++) {
            b.append(String.format(Locale.ROOT, "BenchmarkPVCChurn/mode=local/qps=unlimited/burst=10/wait=informer-64"
                    + "\t100\t%s ops/s\t%s create-pipeline-p99-ms%n", opsPerSecond[i], p99[i]));
        }
        return Files.writeString(dir.resolve(name), b + UNITS);
    }

    @Test
    void aSignificantDropIsARegressionAndTheSameFilesAreNot(QuarkusMainLauncher launcher, @TempDir Path dir)
            throws Exception {
        Path old = bench(dir, "old.bench", new double[] {30.1, 29.8, 30.4, 30.0, 29.9, 30.2},
                new double[] {80, 82, 79, 81, 80, 83});
        Path worse = bench(dir, "new.bench", new double[] {27.0, 26.8, 27.3, 27.1, 26.9, 27.2},
                new double[] {80, 81, 82, 79, 80, 84});
        Path junit = dir.resolve("compare.xml");
        LaunchResult r = launcher.launch("compare", old.toString(), worse.toString(), "--fail-on-regression", "5",
                "--junit", junit.toString());
        assertEquals(1, r.exitCode(), r.getOutput() + r.getErrorOutput());
        String xml = Files.readString(junit);
        dev.provbench.report.JUnitSchemas.validate(xml);
        assertTrue(xml.contains("tests=\"2\" failures=\"1\" errors=\"0\""), "one case per metric, the regression "
                + "failed: " + xml);
        assertTrue(xml.contains("<failure message=\"BenchmarkPVCChurn/mode=local/qps=unlimited/burst=10/wait=informer-64 "
                + "ops/s: old 30.05 [") && xml.contains("-9.98 %"), xml);
        String out = r.getOutput();
        assertTrue(out.contains("REGRESSION"), out);
        assertTrue(out.contains("-9.98%"), "ops/s fell by 10 %: " + out);
        assertTrue(out.contains("p=0.002"), "6 against 6, no overlap: exact p = 2/C(12,6): " + out);
        assertTrue(out.lines().anyMatch(l -> l.contains("create-pipeline-p99-ms") && l.contains(" ~ ")),
                "p99 did not change significantly: " + out);
        assertTrue(out.contains("1 regression(s) beyond 5 %"), out);

        LaunchResult same = launcher.launch("compare", old.toString(), old.toString(), "--fail-on-regression", "5");
        assertEquals(0, same.exitCode(), same.getOutput() + same.getErrorOutput());
        assertFalse(same.getOutput().contains("REGRESSION"), same.getOutput());
        assertTrue(same.getOutput().contains("no regression beyond 5 %"), same.getOutput());

        // the better direction counts: the same drop in the other direction is an improvement, not a failure
        LaunchResult better = launcher.launch("compare", worse.toString(), old.toString(), "--fail-on-regression",
                "5", "--format", "json");
        assertEquals(0, better.exitCode(), better.getOutput() + better.getErrorOutput());
        assertTrue(better.getOutput().contains("\"significant\" : true"), better.getOutput());
    }

    @Test
    void tooFewSamplesAreSaidPlainly(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path a = bench(dir, "a.bench", new double[] {30, 31, 32}, new double[] {80, 81, 82});
        Path b = bench(dir, "b.bench", new double[] {20, 21, 22}, new double[] {80, 81, 82});
        LaunchResult r = launcher.launch("compare", a.toString(), b.toString(), "--format", "markdown");
        assertEquals(0, r.exitCode(), r.getErrorOutput());
        String out = r.getOutput();
        assertTrue(out.contains("±∞"), "no finite interval from 3 samples: " + out);
        assertTrue(out.contains("need >= 6 samples for a confidence interval"), out);
        assertTrue(out.contains("need >= 4 samples on each side to detect a difference"), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("| cell |")), out);
    }

    @Test
    void reportsOfRealRunsAreInputsToo(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        for (String n : new String[] {"1", "2"}) {
            LaunchResult run = launcher.launch("run", "--local", "--cycles", "10", "--threads", "4", "--qps", "-1",
                    "--format", "json", "--out", dir.resolve("r" + n + ".json").toString());
            assertEquals(0, run.exitCode(), run.getErrorOutput());
        }
        Path old = Files.createDirectory(dir.resolve("old"));
        Files.move(dir.resolve("r1.json"), old.resolve("r1.json"));
        LaunchResult r = launcher.launch("compare", old.toString(), dir.resolve("r2.json").toString());
        assertEquals(0, r.exitCode(), r.getErrorOutput());
        assertTrue(r.getOutput().contains("ops/s (higher is better)"), r.getOutput());
        assertTrue(r.getOutput().contains("req/op (lower is better)"), r.getOutput());
    }

    @Test
    void badInputIsExit2NamingItWithoutItsContent(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path secret = Files.writeString(dir.resolve("x.json"), "{\"password\": \"hunter2\"");
        Path ok = bench(dir, "ok.bench", new double[] {1}, new double[] {1});
        LaunchResult r = launcher.launch("compare", secret.toString(), ok.toString());
        assertEquals(2, r.exitCode());
        assertTrue(r.getErrorOutput().contains("x.json is not a provbench report"), r.getErrorOutput());
        assertFalse(r.getErrorOutput().contains("hunter2"), r.getErrorOutput());
        assertEquals(2, launcher.launch("compare", ok.toString()).exitCode());
        assertEquals(2, launcher.launch("compare", ok.toString(), ok.toString(), "--alpha", "2").exitCode());
    }
}
