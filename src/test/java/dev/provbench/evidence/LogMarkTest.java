package dev.provbench.evidence;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LogMarkTest {

    private static List<String> lines(LogMark.Opened o) throws Exception {
        List<String> out = new ArrayList<>();
        try (BufferedReader r = o.reader()) {
            for (String l; (l = r.readLine()) != null; ) {
                out.add(l);
            }
        }
        return out;
    }

    private static void append(Path f, String s) throws Exception {
        Files.writeString(f, s, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void readsFromTheFirstWholeLineAfterTheMark(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("a.log");
        append(f, "old 1\nold 2\n");
        LogMark between = LogMark.of(f);
        append(f, "new 1\nhalf");
        LogMark cut = LogMark.of(f);
        append(f, " of a line\nnew 2\n");
        LogMark.Opened o = LogMark.open(f, between);
        assertFalse(o.rewound());
        assertEquals(12, o.skipped());
        assertEquals(List.of("new 1", "half of a line", "new 2"), lines(o));
        assertEquals(List.of("new 2"), lines(LogMark.open(f, cut)), "the line the mark cut began before the run");
        assertEquals(5, lines(LogMark.open(f, null)).size(), "no mark: the whole file");
        assertEquals(List.of(), lines(LogMark.open(f, LogMark.of(f))), "nothing written since");
    }

    @Test
    void aTruncatedOrReplacedFileIsReadFromItsBeginning(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("b.log");
        append(f, "x".repeat(100) + "\n");
        LogMark m = LogMark.of(f);
        Files.writeString(f, "after truncation\n"); // same file, shorter
        LogMark.Opened o = LogMark.open(f, m);
        assertTrue(o.rewound());
        assertEquals(List.of("after truncation"), lines(o));

        LogMark m2 = LogMark.of(f);
        Path rotated = dir.resolve("b.log.1");
        Files.move(f, rotated);
        append(f, "a new file\n" + "y".repeat(200) + "\n");
        LogMark.Opened o2 = LogMark.open(f, m2);
        assertTrue(o2.rewound(), "another file key: rotated");
        assertEquals("a new file", lines(o2).get(0));
    }

    @Test
    void theAuditLogIsReadFromTheMarkOn(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("audit.log");
        String event = "{\"stage\":\"ResponseComplete\",\"requestReceivedTimestamp\":\"2026-12-03T10:00:%02dZ\","
                + "\"verb\":\"create\",\"user\":{\"username\":\"csi-provisioner\"},\"objectRef\":{\"resource\":"
                + "\"persistentvolumes\"},\"responseStatus\":{\"code\":201}}\n";
        for (int i = 0; i < 50; i++) {
            append(f, String.format(event, 1)); // written before the run: never read
        }
        LogMark m = LogMark.of(f);
        for (int i = 0; i < 3; i++) {
            append(f, String.format(event, 20 + i));
        }
        AuditLog.Read r = AuditLog.read(f, m, Instant.parse("2026-12-03T10:00:00Z"),
                Instant.parse("2026-12-03T10:00:10Z"), Instant.parse("2026-12-03T10:01:00Z"));
        assertEquals(3, r.counts().get("csi-provisioner").requests());
        assertEquals(Files.size(f) - 3L * String.format(event, 20).length(), r.skippedBytes());
        assertEquals(53, AuditLog.read(f, null, Instant.parse("2026-12-03T10:00:00Z"),
                Instant.parse("2026-12-03T10:00:00Z"), Instant.parse("2026-12-03T10:01:00Z")).counts()
                .get("csi-provisioner").requests(), "without a mark: all of it");
    }
}
