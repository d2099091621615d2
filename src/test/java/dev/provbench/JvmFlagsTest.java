package dev.provbench;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JVM flags are defined once, per command, in the image's entrypoint {@code src/main/docker/provbench}: the image
 * runs it ({@code Dockerfile.jvm}'s ENTRYPOINT), {@code hack/provbench} (what the benchmarks start) runs it, and no
 * manifest in {@code kubernetes/} sets a base image's launcher variables (which the entrypoint would silently ignore).
 */
class JvmFlagsTest {
    static final Path ENTRYPOINT = Path.of("src/main/docker/provbench");
    /** Variables of the Red Hat base's run-java.sh; provbench's image does not use that launcher. */
    static final Pattern RUN_JAVA_VARIABLES = Pattern.compile(
            "\\b(GC_CONTAINER_OPTIONS|JAVA_MAX_MEM_RATIO|JAVA_INITIAL_MEM_RATIO|JAVA_OPTS_APPEND|JAVA_APP_JAR|"
                    + "JAVA_MAIN_CLASS|JAVA_MAX_INITIAL_MEM|JAVA_DIAGNOSTICS)\\b");

    @Test
    void theLauncherAndTheImageEntrypointGiveEachCommandTheSameFlags() throws Exception {
        for (String command : List.of("driver", "run", "sweep", "cleanup", "compare", "serve", "version")) {
            List<String> image = printFlags(List.of("sh", ENTRYPOINT.toString(), command));
            List<String> launcher = printFlags(List.of("bash", "hack/provbench", command));
            assertEquals(image, launcher, command);
        }
        List<String> driver = printFlags(List.of("sh", ENTRYPOINT.toString(), "driver"));
        // the figures of docs/benchmarks.md ("Mock CSI driver: footprint") were taken with these
        for (String f : List.of("-XX:+UseSerialGC", "-XX:MaxRAMPercentage=75", "-Xms16m", "-Xss512k",
                "-XX:TrimNativeHeapInterval=5000", "-XX:+ExitOnOutOfMemoryError", "-XX:-TieredCompilation")) {
            assertTrue(driver.contains(f), "driver: " + f + " in " + driver);
        }
        List<String> tool = printFlags(List.of("sh", ENTRYPOINT.toString(), "run"));
        // and those of "Load driver: what `provbench run` itself costs" with these
        for (String f : List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xms32m", "-Xss512k",
                "-XX:TrimNativeHeapInterval=5000")) {
            assertTrue(tool.contains(f), "run: " + f + " in " + tool);
        }
        assertFalse(printFlags(List.of("sh", ENTRYPOINT.toString(), "serve")).contains("-XX:TieredStopAtLevel=1"),
                "serve is long-lived: C2 stays");
        assertTrue(Files.isExecutable(ENTRYPOINT), "the image copies the entrypoint with its mode");
    }

    @Test
    void theImageRunsProvbenchsOwnEntrypoint() throws Exception {
        String docker = code(Files.readString(Path.of("Dockerfile.jvm")));
        assertTrue(docker.contains("COPY src/main/docker/provbench /usr/local/bin/provbench"), docker);
        assertTrue(docker.contains("ENTRYPOINT [\"/usr/local/bin/provbench\"]"), docker);
        assertTrue(docker.contains("USER 185"), docker);
        assertTrue(Pattern.compile("(?m)^ARG BASE=").matcher(docker).find(), "the base is a build argument");
        assertFalse(docker.contains("run-java"), "no base's launcher");
        assertFalse(RUN_JAVA_VARIABLES.matcher(docker).find(), "no base launcher's variables");
    }

    @Test
    void noManifestSetsABaseLaunchersVariables() throws Exception {
        try (Stream<Path> files = Files.walk(Path.of("kubernetes"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".yaml")).toList()) {
                String text = code(Files.readString(p));
                assertFalse(RUN_JAVA_VARIABLES.matcher(text).find(), p + " sets a variable the image ignores");
                assertFalse(Pattern.compile("(?m)^\\s*command:").matcher(text).find(),
                        p + " replaces the image's entrypoint (and with it the JVM flags)");
            }
        }
    }

    /** The text without comment lines ("#" first on the line, after blanks). */
    private static String code(String text) {
        return Arrays.stream(text.split("\n")).filter(l -> !l.stripLeading().startsWith("#"))
                .reduce("", (a, b) -> a + b + "\n");
    }

    @Test
    void onlyTheDriverUsesAClassDataArchiveWhenTheImageHasIt(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        Map<String, String> env = Map.of("PROVBENCH_CDS_DIR", dir.toString());
        for (String command : List.of("run", "sweep", "driver", "cleanup", "compare", "serve")) {
            assertTrue(printFlags(List.of("sh", ENTRYPOINT.toString(), command), env).stream()
                    .noneMatch(f -> f.startsWith("-XX:SharedArchiveFile")), command + ": no archive, no flag");
        }
        // an archive of another name beside the driver's (an image built before `run` lost its own) is not used
        Files.writeString(dir.resolve("run.jsa"), "x");
        Files.writeString(dir.resolve("driver.jsa"), "x");
        assertTrue(printFlags(List.of("sh", ENTRYPOINT.toString(), "driver"), env)
                .contains("-XX:SharedArchiveFile=" + dir.resolve("driver.jsa")), "driver");
        for (String command : List.of("run", "sweep", "cleanup", "compare", "serve", "version")) {
            assertTrue(printFlags(List.of("sh", ENTRYPOINT.toString(), command), env).stream()
                    .noneMatch(f -> f.contains("Archive")), command + " has no archive of its own");
        }
        assertTrue(printFlags(List.of("sh", ENTRYPOINT.toString(), "driver"), Map.of("PROVBENCH_CDS_DIR",
                dir.toString(), "PROVBENCH_CDS", "off")).stream().noneMatch(f -> f.contains("Archive")),
                "PROVBENCH_CDS=off");
        List<String> dump = printFlags(List.of("sh", ENTRYPOINT.toString(), "driver"), Map.of("PROVBENCH_CDS_DIR",
                dir.toString(), "PB_CDS_DUMP", "/tmp/d.jsa"));
        assertTrue(dump.contains("-XX:ArchiveClassesAtExit=/tmp/d.jsa"), dump.toString());
        assertTrue(dump.stream().noneMatch(f -> f.startsWith("-XX:SharedArchiveFile")), "training maps none");
        // the image makes them with its own JVM, as the user 185, from the jars it ships
        String docker = code(Files.readString(Path.of("Dockerfile.jvm")));
        int train = docker.indexOf("RUN cds-train /deployments/cds");
        assertTrue(train > docker.lastIndexOf("USER 185") && train > docker.lastIndexOf("COPY --chown=185:0 target"),
                "cds-train runs after the jars are in, as 185");
        assertTrue(Files.isExecutable(Path.of("src/main/docker/cds-train")));
    }

    /**
     * The load tool's commands start the JVM with glibc's malloc limited to two arenas, unless the caller set its
     * own; the driver and serve keep glibc's default (seen by a stand-in {@code java} that prints what it got).
     */
    @Test
    void theLoadToolsCommandsGetTwoMallocArenasUnlessTheCallerSaysOtherwise(
            @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path java = Files.createDirectories(dir.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\necho \"arenas=${MALLOC_ARENA_MAX-unset}\"\n");
        assertTrue(java.toFile().setExecutable(true));
        for (String command : List.of("run", "sweep", "cleanup", "compare")) {
            assertEquals("arenas=2", launch(command, dir, null), command);
        }
        assertEquals("arenas=8", launch("run", dir, "8"), "the caller's value wins");
        assertEquals("arenas=unset", launch("driver", dir, null));
        assertEquals("arenas=unset", launch("serve", dir, null));
    }

    private static String launch(String command, Path javaHome, String arenas) throws Exception {
        Map<String, String> env = new HashMap<>(Map.of("JAVA_HOME", javaHome.toString(), "PROVBENCH_CDS", "off"));
        if (arenas != null) {
            env.put("MALLOC_ARENA_MAX", arenas);
        }
        return start(List.of("sh", ENTRYPOINT.toString(), command), env).out();
    }

    private static List<String> printFlags(List<String> command) throws IOException, InterruptedException {
        return printFlags(command, Map.of());
    }

    private static List<String> printFlags(List<String> command, Map<String, String> env)
            throws IOException, InterruptedException {
        Map<String, String> withPrint = new HashMap<>(env);
        withPrint.put("PB_PRINT_FLAGS", "1");
        Ended ended = start(command, withPrint);
        assertEquals(0, ended.exit(), command + ": " + ended.out());
        return Arrays.asList(ended.out().split("\\s+"));
    }

    private record Ended(int exit, String out) {
    }

    /** Runs {@code command} with {@code env} over this process's, without its MALLOC_ARENA_MAX and PB_PRINT_FLAGS. */
    private static Ended start(List<String> command, Map<String, String> env)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().remove("MALLOC_ARENA_MAX");
        pb.environment().remove("PB_PRINT_FLAGS");
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), command + " did not end");
            return new Ended(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                    .trim());
        } finally {
            p.destroyForcibly();
        }
    }
}
