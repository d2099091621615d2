package dev.provbench.compare;

import dev.provbench.report.BenchFormat;
import dev.provbench.report.JsonFormat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * One side of a comparison: every sample of every metric, by benchmark name (the cell) and unit. Read from
 * Go benchmark lines — provbench's {@code --format bench}, or any benchstat input — and from report JSON files,
 * which are turned into those same lines first ({@link BenchFormat}), so one parser and one set of units
 * (with their {@code Unit … better=} directions) serve every input. A directory holds the samples of its
 * {@code *.json} and {@code *.bench}/{@code *.txt} files; a sweep's directory (it has {@code sweep.bench}) the
 * samples of {@code sweep.bench}. Several inputs on one side add up.
 */
public final class Samples {
    /** Inputs larger than this are refused (a report is tens of KiB). */
    static final long MAX_BYTES = 16L << 20;
    /** At most this many files per side. */
    static final int MAX_FILES = 10_000;

    /** cell → unit → values, in the order read. */
    private final Map<String, Map<String, List<Double>>> values = new LinkedHashMap<>();
    /** unit → "higher" or "lower". */
    private final Map<String, String> better = new TreeMap<>();
    private int files;

    public static Samples read(List<Path> inputs) throws IOException {
        Samples s = new Samples();
        for (Path p : inputs) {
            s.add(p);
        }
        if (s.values.isEmpty()) {
            throw new IOException("no benchmark samples in " + inputs);
        }
        return s;
    }

    /** The samples of Go benchmark lines in {@code text} (empty when there are none). */
    public static Samples parseText(String text) {
        Samples s = new Samples();
        s.parse(text);
        return s;
    }

    private void add(Path p) throws IOException {
        if (Files.isDirectory(p) && Files.isRegularFile(p.resolve("sweep.bench"))) {
            add(p.resolve("sweep.bench")); // a sweep's directory: its runs are in sweep.bench, once
            return;
        }
        if (Files.isDirectory(p)) {
            List<Path> inside;
            try (Stream<Path> list = Files.list(p)) {
                inside = list.filter(f -> Files.isRegularFile(f) && (name(f).endsWith(".json")
                        || name(f).endsWith(".bench") || name(f).endsWith(".txt")))
                        .filter(f -> !name(f).equals("sweep.json")).sorted().toList();
            }
            for (Path f : inside) {
                add(f);
            }
            return;
        }
        if (!Files.isRegularFile(p)) {
            throw new IOException(p + " is neither a file nor a directory");
        }
        if (++files > MAX_FILES) {
            throw new IOException("more than " + MAX_FILES + " files on one side");
        }
        if (Files.size(p) > MAX_BYTES) {
            throw new IOException(p + " is larger than " + MAX_BYTES + " bytes");
        }
        String text = Files.readString(p);
        if (name(p).endsWith(".json")) {
            try {
                text = new BenchFormat().render(dev.provbench.run.Measurements.parse(text));
            } catch (IOException | RuntimeException e) {
                // the parser's message quotes the file: name the file and the kind of failure only
                throw new IOException(p + " is not a provbench report (" + e.getClass().getSimpleName() + ")");
            }
        }
        if (!parse(text)) {
            throw new IOException(p + " holds no benchmark line");
        }
    }

    private static String name(Path p) {
        return p.getFileName().toString();
    }

    /** Reads Go benchmark lines; returns whether there was at least one. */
    boolean parse(String text) {
        boolean any = false;
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].equals("Unit")) {
                for (int i = 2; i < f.length; i++) {
                    if (f[i].startsWith("better=")) {
                        better.put(f[1], f[i].substring("better=".length()));
                    }
                }
                continue;
            }
            if (f.length < 4 || !f[0].startsWith("Benchmark") || (f.length - 2) % 2 != 0) {
                continue;
            }
            try {
                Long.parseLong(f[1]); // the iteration count
                Map<String, List<Double>> cell = values.computeIfAbsent(f[0], k -> new LinkedHashMap<>());
                for (int i = 2; i + 1 < f.length; i += 2) {
                    cell.computeIfAbsent(f[i + 1], k -> new ArrayList<>()).add(Double.parseDouble(f[i]));
                }
                any = true;
            } catch (NumberFormatException e) {
                // not a benchmark result line
            }
        }
        return any;
    }

    public Map<String, Map<String, List<Double>>> values() {
        return values;
    }

    /** "higher", "lower", or null when no input said. */
    public String better(String unit) {
        return better.get(unit);
    }

    public Map<String, String> directions() {
        return better;
    }
}
