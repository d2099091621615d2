package dev.provbench.measure;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.provbench.load.ListWatch;
import dev.provbench.load.LoadRun;
import dev.provbench.load.RunWindow;
import dev.provbench.load.Waits;
import dev.provbench.report.SectionKind;
import dev.provbench.report.SectionKind.Row;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code lists}: what the tool's own list-watches ({@link ListWatch}: its PV watch, and its claim watch in each of
 * the run's namespaces) spent on their LISTs — the first (before the window: the population, if any, is in the PV
 * watch's) and every relist (after HTTP 410, or after a failure) over the whole run, with those that ended inside
 * the window counted apart: the objects, pages and bytes read, the time from the first page's request until the
 * cache was replaced, and the CPU time of the threads that read the pages ({@code ThreadMXBean}; null where this
 * JVM does not measure it). Defined here alone; docs/load.md, "Every number, defined once".
 */
public final class ListCosts implements Measurement {

    /**
     * One LIST: {@code cpuSeconds} the threads that read it, {@code processCpuSeconds} the whole process over its span
     * (the transfer and TLS too, and anything else the process did then); null when not measured.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Listed(String why, int pages, int items, long bytes, double seconds, Double cpuSeconds,
                         Double processCpuSeconds) {
        static Listed of(ListWatch.Listing l) {
            return new Listed(l.why().name().toLowerCase(Locale.ROOT), l.pages(), l.items(), l.bytes(),
                    round(l.seconds()), l.cpuNanos() < 0 ? null : round(l.cpuNanos() / 1e9),
                    l.processCpuNanos() < 0 ? null : round(l.processCpuNanos() / 1e9));
        }
    }

    /**
     * One list-watch: its resource and namespace (null: cluster-scoped), its first LIST (null: it never completed
     * one), how many relists completed ({@code relists}, by why), how many of them ended in the window, the sum of
     * their time and CPU over the ones kept ({@code relistsKept}: the last {@value ListWatch#LISTINGS_KEPT}) and the
     * last one.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Watch(String resource, String namespace, Listed first, long relists, Map<String, Long> relistsByWhy,
                        long relistsInWindow, int relistsKept, double relistSeconds, Double relistCpuSeconds,
                        Listed lastRelist) {
    }

    public record Lists(List<Watch> watches) {
    }

    public static final SectionKind<Lists> LISTS = SectionKind.of("lists", Lists.class)
            .scope("the tool's own list-watches (its PV watch and its claim watch per namespace), over the whole run "
                    + "(the first LIST before the window; relists whenever they came, those in the window counted "
                    + "apart)")
            .rows(l -> {
                List<Row> rows = new ArrayList<>();
                for (Watch w : l.watches()) {
                    String name = w.resource() + (w.namespace() == null ? "" : " (" + w.namespace() + ")");
                    rows.add(new Row("lists", name + " first LIST", w.first() == null ? "did not complete"
                            : describe(w.first())));
                    if (w.relists() > 0) {
                        rows.add(new Row("lists", name + " relists", String.format(Locale.ROOT,
                                "%d %s, %d in the window; last: %s", w.relists(), w.relistsByWhy(),
                                w.relistsInWindow(), describe(w.lastRelist()))));
                    }
                }
                return rows;
            });

    private static String describe(Listed l) {
        return String.format(Locale.ROOT, "%d objects in %d page(s), %.1f MiB, %.2f s; CPU %s reading, %s the "
                + "process over its span", l.items(), l.pages(), l.bytes() / 1048576.0, l.seconds(), seconds(l.cpuSeconds()),
                seconds(l.processCpuSeconds()));
    }

    private static String seconds(Double s) {
        return s == null ? "unmeasured" : String.format(Locale.ROOT, "%.2f s", s);
    }

    private final LoadRun run;
    private RunWindow window;

    public ListCosts(LoadRun run) {
        this.run = run;
    }

    @Override
    public void finish(RunWindow w) {
        window = w;
    }

    @Override
    public void report(ReportDraft d) {
        Waits waits = run.waits();
        if (waits == null || waits.listWatches().isEmpty()) {
            return; // poll mode: no list-watch
        }
        List<Watch> out = new ArrayList<>();
        List<ListWatch<?>> all = waits.listWatches();
        for (int i = 0; i < all.size(); i++) {
            ListWatch<?> lw = all.get(i);
            String ns = i == 0 ? null : waits.namespaces().names().get(i - 1);
            List<ListWatch.Listing> kept = lw.relists();
            Map<String, Long> byWhy = new TreeMap<>();
            long inWindow = 0;
            double seconds = 0;
            double cpu = 0;
            boolean cpuKnown = true;
            for (ListWatch.Listing l : kept) {
                byWhy.merge(l.why().name().toLowerCase(Locale.ROOT), 1L, Long::sum);
                if (window != null && window.opened() && l.endNanos() >= window.windowStartNanos()
                        && (!window.closed() || l.endNanos() <= window.windowEndNanos())) {
                    inWindow++;
                }
                seconds += l.seconds();
                cpuKnown &= l.cpuNanos() >= 0;
                cpu += Math.max(0, l.cpuNanos()) / 1e9;
            }
            out.add(new Watch(lw.what(), ns, lw.first() == null ? null : Listed.of(lw.first()), lw.relistCount(),
                    byWhy, inWindow, kept.size(), round(seconds), cpuKnown ? round(cpu) : null,
                    kept.isEmpty() ? null : Listed.of(kept.get(kept.size() - 1))));
            if (lw.relistCount() > kept.size()) {
                d.warn("the " + lw.what() + " watch listed " + lw.relistCount() + " times again; the report keeps "
                        + "the last " + kept.size() + " (their kinds and the window count are of those)");
            }
        }
        d.put(LISTS, new Lists(out));
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
