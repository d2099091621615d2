package dev.provbench.csi.state;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The heap-derived default limits ({@link HeapBudget}) fill a small heap with RESOURCE_EXHAUSTED answers, never an
 * OutOfMemoryError: a JVM with {@code -Xmx64m} (and {@code -XX:+ExitOnOutOfMemoryError}, so an OOM is an exit code)
 * creates volumes as the driver does — a new name and a new parameter map per request — until the store refuses,
 * then checks it still answers. Once with typical requests, once with as many tiny parameters as the driver admits
 * (the most heap per volume a client can make it keep). {@code hack/bench/driver-memory} does the same to the whole
 * driver process over its socket.
 */
class HeapFillTest {

    @Test
    void typicalRequestsFillA64MiBHeapToTheLimit() throws Exception {
        String out = fork("typical");
        assertTrue(out.contains("exhausted=true"), out);
        assertTrue(out.contains("reason=volume limit"), out);
        assertTrue(out.contains("after=ok"), out);
    }

    @Test
    void tinyParametersFillA64MiBHeapToTheHeldBytesLimit() throws Exception {
        String out = fork("tiny-parameters");
        assertTrue(out.contains("exhausted=true"), out);
        assertTrue(out.contains("after=ok"), out);
    }

    private static String fork(String mode) throws Exception {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path log = Files.createTempFile("heap-fill", ".log");
        try {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx64m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError", "-cp", cp, Fill.class.getName(), mode)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the fill did not end within 120 s");
            String out = Files.readString(log);
            assertEquals(0, p.exitValue(), "exit " + p.exitValue() + " (3 = OutOfMemoryError): " + out);
            return out;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The forked fill. Prints {@code created=N exhausted=B reason=… after=ok|…}. */
    public static final class Fill {
        public static void main(String[] args) {
            long heap = Runtime.getRuntime().maxMemory();
            VolumeStore store = new VolumeStore(new Limits(1L << 30, 0, 0, HeapBudget.maxVolumes(heap), 0, 0,
                    HeapBudget.maxHeldBytes(heap)), Clock.systemUTC());
            Map<String, String> template = new HashMap<>();
            if (args[0].equals("tiny-parameters")) {
                for (int i = 0, bytes = 0; bytes + 6 <= 4096; i++) {
                    String k = Integer.toString(i, 36);
                    template.put(k, "x");
                    bytes += k.length() + 1;
                }
            } else {
                template.put("type", "ssd");
                template.put("csi.storage.k8s.io/fstype", "ext4");
            }
            long created = 0;
            String reason = "";
            List<String> ids = new ArrayList<>();
            while (true) {
                Map<String, String> params = new HashMap<>();
                // new strings per request, as protobuf decodes them; tiny maps differ per volume (none shared)
                template.forEach((k, v) -> params.put(new String(k), args[0].equals("typical") ? new String(v)
                        : v + (ids.size() % 1000)));
                try {
                    Volume v = store.create(new VolumeStore.CreateSpec("pvc-" + UUID.randomUUID(), 1L << 30, 0,
                            params, Map.of(), null)).volume();
                    ids.add(v.id());
                    created++;
                } catch (StateException e) {
                    reason = e.getMessage();
                    break;
                }
            }
            // still answering: a lookup, a delete and a create in the room it made
            boolean ok = store.volume(ids.get(0)).isPresent() && store.delete(ids.get(0))
                    && store.create(new VolumeStore.CreateSpec("pvc-again", 0, 0, Map.of(), Map.of(), null)).isNew();
            System.out.printf("created=%d exhausted=true reason=%s after=%s heap=%dMiB%n", created, reason,
                    ok ? "ok" : "failed", heap >> 20);
        }
    }
}
