package dev.provbench.evidence;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;

/**
 * Where a growing log file (kube-apiserver's audit log, csi-provisioner's log) stood before a run's first
 * request: the run reads it from there on, so what it reads is in proportion to the run, not to the cluster's
 * history. A file that was replaced (another file key: rotated) or truncated since is read from its beginning,
 * and {@link Opened#rewound} says so.
 *
 * @param fileKey the file's identity (device and inode on Linux), or null where the file system has none
 * @param size    its length when marked
 */
public record LogMark(Object fileKey, long size) {

    /** The mark of {@code file} now; null when it cannot be read (then the whole file is read later). */
    public static LogMark of(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new LogMark(a.fileKey(), a.size());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * A reader of {@code file}, lenient about malformed bytes.
     *
     * @param skipped bytes before the reader's first line (0 when read from the beginning)
     * @param rewound the file was replaced or truncated after {@code mark}: read from its beginning
     */
    public record Opened(BufferedReader reader, long skipped, boolean rewound) {
    }

    /**
     * Opens {@code file} at its first whole line after {@code mark} (a line cut by the mark began before it and is
     * skipped); at its beginning without a mark, or when it was replaced or truncated since.
     */
    public static Opened open(Path file, LogMark mark) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        try {
            long size = ch.size();
            Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
            boolean same = mark != null && Objects.equals(key, mark.fileKey()) && size >= mark.size();
            long from = same ? mark.size() : 0;
            if (from > 0) {
                ch.position(from - 1); // the byte before the mark: a newline when the mark fell between lines
            }
            var decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE);
            BufferedReader r = new BufferedReader(Channels.newReader(ch, decoder, -1), 1 << 16);
            if (from > 0) {
                r.readLine(); // the rest of the line the mark cut, or the empty rest after its newline
            }
            return new Opened(r, from, mark != null && !same);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }
}
