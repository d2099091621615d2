package dev.provbench;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The driver's JVM flags are written three times — {@code hack/provbench} (what the benchmarks start),
 * {@code Dockerfile.jvm} and {@code kubernetes/base/deployment.yaml} (through run-java.sh's variables) — and must
 * be one set.
 */
class DriverJvmFlagsTest {
    /** What the image's run-java.sh adds on its own (ubi9 openjdk-17-runtime), besides the variables below. */
    static final Set<String> RUN_JAVA_DEFAULTS = Set.of("-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=20",
            "-XX:+ExitOnOutOfMemoryError");

    @Test
    void launcherImageAndDeploymentAgree() throws Exception {
        Matcher m = Pattern.compile("DRIVER_JVM_FLAGS=\"([^\"]*)\"").matcher(Files.readString(Path.of("hack/provbench")));
        assertTrue(m.find(), "hack/provbench defines DRIVER_JVM_FLAGS");
        Set<String> launcher = new LinkedHashSet<>(Arrays.asList(m.group(1).trim().split("\\s+")));

        String docker = Files.readString(Path.of("Dockerfile.jvm"));
        assertEquals(Set.copyOf(launcher), imageFlags(env(docker, "ENV GC_CONTAINER_OPTIONS=\"([^\"]*)\""),
                env(docker, "ENV JAVA_MAX_MEM_RATIO=(\\d+)"), env(docker, "ENV JAVA_OPTS_APPEND=\"([^\"]*)\"")),
                "Dockerfile.jvm");

        String deployment = Files.readString(Path.of("kubernetes/base/deployment.yaml"));
        assertEquals(Set.copyOf(launcher), imageFlags(env(deployment, "name: GC_CONTAINER_OPTIONS, value: \"([^\"]*)\""),
                env(deployment, "name: JAVA_MAX_MEM_RATIO, value: \"(\\d+)\""),
                env(deployment, "name: JAVA_OPTS_APPEND, value: \"([^\"]*)\"")), "kubernetes/base/deployment.yaml");
    }

    private static String env(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), "no " + regex);
        return m.group(1);
    }

    private static Set<String> imageFlags(String gc, String maxRatio, String append) {
        Set<String> flags = new LinkedHashSet<>(Arrays.asList(gc.trim().split("\\s+")));
        flags.add("-XX:MaxRAMPercentage=" + maxRatio);
        flags.addAll(RUN_JAVA_DEFAULTS);
        for (String f : append.trim().split("\\s+")) {
            if (!f.startsWith("-Djava.util.logging.manager=")) { // the launcher's java -jar sets it itself
                flags.add(f);
            }
        }
        return Set.copyOf(flags);
    }
}
