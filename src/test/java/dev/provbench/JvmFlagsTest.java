package dev.provbench;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JVM flags are written more than once and must be one set each: the driver's in {@code hack/provbench}
 * (DRIVER_JVM_FLAGS, what the benchmarks start), {@code Dockerfile.jvm} and {@code kubernetes/base/deployment.yaml};
 * the load tool's in {@code hack/provbench} (TOOL_JVM_FLAGS, what hack/bench/tool-cost measures) and the two Jobs
 * ({@code kubernetes/base/job.yaml}, {@code kubernetes/components/sweep/job.yaml}) — the latter two through the
 * image's run-java.sh variables.
 */
class JvmFlagsTest {
    /** What the image's run-java.sh adds on its own (ubi9 openjdk-17-runtime), besides the variables below. */
    static final Set<String> RUN_JAVA_DEFAULTS = Set.of("-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=20",
            "-XX:+ExitOnOutOfMemoryError");

    @Test
    void driverLauncherImageAndDeploymentAgree() throws Exception {
        Set<String> launcher = launcherFlags("DRIVER_JVM_FLAGS");

        String docker = Files.readString(Path.of("Dockerfile.jvm"));
        assertEquals(launcher, imageFlags(env(docker, "ENV GC_CONTAINER_OPTIONS=\"([^\"]*)\""),
                env(docker, "ENV JAVA_MAX_MEM_RATIO=(\\d+)"), env(docker, "ENV JAVA_OPTS_APPEND=\"([^\"]*)\"")),
                "Dockerfile.jvm");

        String deployment = Files.readString(Path.of("kubernetes/base/deployment.yaml"));
        assertEquals(launcher, imageFlags(env(deployment, "name: GC_CONTAINER_OPTIONS, value: \"([^\"]*)\""),
                env(deployment, "name: JAVA_MAX_MEM_RATIO, value: \"(\\d+)\""),
                env(deployment, "name: JAVA_OPTS_APPEND, value: \"([^\"]*)\"")), "kubernetes/base/deployment.yaml");
    }

    @Test
    void toolLauncherAndJobsAgree() throws Exception {
        Set<String> launcher = launcherFlags("TOOL_JVM_FLAGS");
        for (String job : List.of("kubernetes/base/job.yaml", "kubernetes/components/sweep/job.yaml")) {
            String text = Files.readString(Path.of(job));
            Set<String> flags = new LinkedHashSet<>(split(env(text, "name: GC_CONTAINER_OPTIONS, value: \"([^\"]*)\"")));
            flags.addAll(appended(env(text, "name: JAVA_OPTS_APPEND, value: \"([^\"]*)\"")));
            assertEquals(launcher, Set.copyOf(flags), job);
        }
    }

    private static Set<String> launcherFlags(String variable) throws Exception {
        Matcher m = Pattern.compile(variable + "=\"([^\"]*)\"").matcher(Files.readString(Path.of("hack/provbench")));
        assertTrue(m.find(), "hack/provbench defines " + variable);
        return Set.copyOf(split(m.group(1)));
    }

    private static List<String> split(String flags) {
        return Arrays.asList(flags.trim().split("\\s+"));
    }

    /** JAVA_OPTS_APPEND's flags without the log manager, which the launcher's java -jar sets itself. */
    private static List<String> appended(String append) {
        return split(append).stream().filter(f -> !f.startsWith("-Djava.util.logging.manager=")).toList();
    }

    private static String env(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), "no " + regex);
        return m.group(1);
    }

    private static Set<String> imageFlags(String gc, String maxRatio, String append) {
        Set<String> flags = new LinkedHashSet<>(split(gc));
        flags.add("-XX:MaxRAMPercentage=" + maxRatio);
        flags.addAll(RUN_JAVA_DEFAULTS);
        flags.addAll(appended(append));
        return Set.copyOf(flags);
    }
}
