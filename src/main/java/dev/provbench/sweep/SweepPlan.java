package dev.provbench.sweep;

import dev.provbench.report.JsonFormat;
import dev.provbench.run.RunLimits;
import dev.provbench.run.RunRequest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A checked sweep: the cells (every combination of the axes), the runs (each cell {@code repeats} times) in a
 * random order from the seed, and each run's checked request. Everything is validated here, before anything
 * starts; a bad value throws {@link RunRequest.Invalid} naming the sweep's field.
 */
public record SweepPlan(SweepRequest request, long seed, List<Cell> cells, List<String> varying,
                        List<Planned> order, Control control, Duration controlTimeout, RunRequest.Checked base) {

    /** How csi-provisioner gets a cell's settings. */
    public enum ControlKind { NONE, STAND_IN, DEPLOYMENT, COMMAND }

    /** @param target NAMESPACE/NAME/CONTAINER of a deployment, the template of a command */
    public record Control(ControlKind kind, String target) {
        public String describe() {
            return switch (kind) {
                case NONE -> "none (csi-provisioner keeps its settings)";
                case STAND_IN -> "stand-in (the in-process stand-in's bucket)";
                case DEPLOYMENT -> "deployment:" + target;
                case COMMAND -> "command:" + target;
            };
        }
    }

    /**
     * One combination of the axes. {@code provisionerQps}/{@code provisionerBurst} are null when
     * csi-provisioner is not reconfigured (a real one keeps what it has).
     */
    public record Cell(int index, double qps, int burst, int threads, Double provisionerQps,
                       Integer provisionerBurst, Long population) {
        /** The settings by axis name, in a fixed order. */
        public Map<String, String> settings() {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("qps", qps < 0 ? "unlimited" : fmt(qps));
            m.put("burst", Integer.toString(burst));
            m.put("threads", Integer.toString(threads));
            if (provisionerQps != null) {
                m.put("provisioner-qps", provisionerQps < 0 ? "unlimited" : fmt(provisionerQps));
                m.put("provisioner-burst", Integer.toString(provisionerBurst));
            }
            if (population != null) {
                m.put("population", Long.toString(population));
            }
            return m;
        }

        /** The benchmark name: {@code BenchmarkPVCChurn} and {@code /key=value} for each axis that varies. */
        public String benchName(List<String> varying) {
            StringBuilder b = new StringBuilder("BenchmarkPVCChurn");
            settings().forEach((k, v) -> {
                if (varying.contains(k)) {
                    b.append('/').append(k).append('=').append(v);
                }
            });
            return b.toString();
        }

        /** Short text for progress lines: the axes that vary, or every setting when none does. */
        public String label(List<String> varying) {
            StringBuilder b = new StringBuilder();
            settings().forEach((k, v) -> {
                if (varying.isEmpty() || varying.contains(k)) {
                    b.append(b.length() == 0 ? "" : " ").append(k).append('=').append(v);
                }
            });
            return b.toString();
        }

        /** The tool's side of the cell (everything but csi-provisioner's settings): the recommendation's group. */
        public String toolKey() {
            return "qps=" + settings().get("qps") + " burst=" + burst + " threads=" + threads;
        }

        /** For ordering provisioner settings: unlimited sorts last. */
        double provisionerOrder() {
            return provisionerQps == null ? 0 : provisionerQps < 0 ? Double.MAX_VALUE : provisionerQps;
        }
    }

    /** One run of the sweep: its place in the order (from 1), its cell, its repeat (from 1). */
    public record Planned(int seq, Cell cell, int repeat, RunRequest.Checked checked) {
    }

    public static String fmt(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
    }

    public int runs() {
        return order.size();
    }

    /** Checks {@code q} within {@code limits}; {@code env} supplies a real cluster's defaults as for a run. */
    public static SweepPlan of(SweepRequest q, RunLimits.Values limits, Map<String, String> env) {
        if (q.run == null) {
            throw SweepRequest.bad("run", "is required");
        }
        if (q.repeats < 1 || q.repeats > SweepRequest.MAX_REPEATS) {
            throw SweepRequest.bad("repeats", "must be 1 to " + SweepRequest.MAX_REPEATS);
        }
        if (!(q.alpha >= 0.001 && q.alpha <= 0.5)) {
            throw SweepRequest.bad("alpha", "must be 0.001 to 0.5");
        }
        if (!(q.tolerance >= 0 && q.tolerance <= 100)) {
            throw SweepRequest.bad("tolerance", "must be 0 to 100");
        }
        Duration controlTimeout = q.controlTimeout();
        List<Double> qps = SweepRequest.numbers("qps", q.qps);
        List<Integer> bursts = q.burst == null ? null : SweepRequest.integers("burst", q.burst);
        List<Integer> threads = SweepRequest.integers("threads", q.threads);
        List<Double> pqps = q.provisionerQps == null ? null : SweepRequest.numbers("provisionerQps", q.provisionerQps);
        List<Integer> pbursts = q.provisionerBurst == null ? null
                : SweepRequest.integers("provisionerBurst", q.provisionerBurst);
        if (pbursts != null && pqps == null) {
            throw SweepRequest.bad("provisionerBurst", "needs --provisioner-qps");
        }
        Control control = control(q, pqps != null);
        List<Long> pops = new ArrayList<>();
        if (q.population == null) {
            pops.add(null);
        } else {
            for (int v : SweepRequest.integers("population", q.population)) {
                pops.add((long) v);
            }
            pops.sort(null); // the population only grows between runs
        }

        // the tool's settings (qps × burst, or qps paired with its default burst), then × threads × provisioner
        List<double[]> tool = rates(qps, bursts);
        List<double[]> prov = new ArrayList<>();
        if (pqps == null) {
            prov.add(q.run.local ? new double[]{q.run.localProvisionerQps, q.run.localProvisionerBurst} : null);
        } else {
            prov.addAll(rates(pqps, pbursts));
        }
        long product = (long) tool.size() * threads.size() * prov.size() * pops.size();
        if (product > SweepRequest.MAX_CELLS) {
            throw SweepRequest.bad("qps", "the axes make " + product + " cells; at most " + SweepRequest.MAX_CELLS);
        }
        List<Cell> cells = new ArrayList<>();
        for (Long pop : pops) {
            for (double[] t : tool) {
                for (int n : threads) {
                    for (double[] p : prov) {
                        cells.add(new Cell(cells.size() + 1, t[0], (int) t[1], n, p == null ? null : p[0],
                                p == null ? null : (int) p[1], pop));
                    }
                }
            }
        }
        if ((long) cells.size() * q.repeats > SweepRequest.MAX_RUNS) {
            throw SweepRequest.bad("repeats", cells.size() + " cells × " + q.repeats + " repeats is more than "
                    + SweepRequest.MAX_RUNS + " runs");
        }
        List<String> varying = new ArrayList<>();
        for (String axis : new String[]{"qps", "burst", "threads", "provisioner-qps", "provisioner-burst",
                "population"}) {
            if (cells.stream().map(c -> c.settings().get(axis)).distinct().count() > 1) {
                varying.add(axis);
            }
        }
        // every run's request, checked: the first bad one names the sweep's field
        RunRequest.Checked base = null;
        Map<Integer, RunRequest.Checked> checked = new LinkedHashMap<>();
        for (Cell c : cells) {
            RunRequest r = runRequest(q.run, c);
            try {
                RunRequest.Checked k = r.withEnvironmentDefaults(env).check(limits);
                checked.put(c.index(), k);
                base = base == null ? k : base;
            } catch (RunRequest.Invalid e) {
                String field = switch (e.field()) {
                    case "localProvisionerQps" -> "provisionerQps";
                    case "localProvisionerBurst" -> "provisionerBurst";
                    default -> e.field();
                };
                throw SweepRequest.bad(field, e.getMessage());
            }
        }
        long seed = q.seed != null ? q.seed : ThreadLocalRandom.current().nextLong(1, 1L << 53);
        List<Planned> order = new ArrayList<>();
        List<int[]> slots = new ArrayList<>();
        for (Cell c : cells) {
            for (int i = 1; i <= q.repeats; i++) {
                slots.add(new int[]{c.index(), i});
            }
        }
        Collections.shuffle(slots, new Random(seed));
        // with a population axis: by population, smallest first (each run grows it, never shrinks it), shuffled
        // within each population (a stable sort keeps the random order there)
        slots.sort(java.util.Comparator.comparingLong(s -> {
            Long pop = cells.get(s[0] - 1).population();
            return pop == null ? 0 : pop;
        }));
        // repeat numbers follow the order within a cell: repeat 1 is a cell's first run
        Map<Integer, Integer> seen = new LinkedHashMap<>();
        for (int[] s : slots) {
            Cell c = cells.get(s[0] - 1);
            int repeat = seen.merge(c.index(), 1, Integer::sum);
            order.add(new Planned(order.size() + 1, c, repeat, checked.get(c.index())));
        }
        return new SweepPlan(q, seed, List.copyOf(cells), List.copyOf(varying), List.copyOf(order), control,
                controlTimeout, base);
    }

    /** QPS × burst, or each QPS with its default burst when no burst is listed: {qps, burst} pairs. */
    private static List<double[]> rates(List<Double> qps, List<Integer> bursts) {
        List<double[]> out = new ArrayList<>();
        for (double v : qps) {
            if (bursts == null) {
                out.add(new double[]{v, SweepRequest.defaultBurst(v)});
            } else {
                for (int b : bursts) {
                    out.add(new double[]{v, b});
                }
            }
        }
        return out;
    }

    private static Control control(SweepRequest q, boolean provisionerAxis) {
        String spec = q.provisionerControl;
        if (spec == null || spec.isBlank()) {
            if (q.run.local) {
                return new Control(ControlKind.STAND_IN, null);
            }
            if (provisionerAxis) {
                throw SweepRequest.bad("provisionerControl", "is required with --provisioner-qps unless --local: "
                        + "deployment:NAMESPACE/NAME[/CONTAINER] or command:TEMPLATE");
            }
            return new Control(ControlKind.NONE, null);
        }
        if (spec.length() > 4096) {
            throw SweepRequest.bad("provisionerControl", "is longer than 4096 characters");
        }
        if (spec.equals("stand-in")) {
            if (!q.run.local) {
                throw SweepRequest.bad("provisionerControl", "stand-in needs --local");
            }
            return new Control(ControlKind.STAND_IN, null);
        }
        if (q.run.local) {
            throw SweepRequest.bad("provisionerControl", "with --local only stand-in applies");
        }
        if (spec.startsWith("deployment:")) {
            String t = spec.substring("deployment:".length());
            String name = "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?";
            if (!t.matches(name + "/" + "[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?" + "(/" + name + ")?")) {
                throw SweepRequest.bad("provisionerControl", "'" + t + "' is not NAMESPACE/NAME[/CONTAINER]");
            }
            if (t.chars().filter(ch -> ch == '/').count() == 1) {
                t = t + "/csi-provisioner";
            }
            return new Control(ControlKind.DEPLOYMENT, t);
        }
        if (spec.startsWith("command:")) {
            String t = spec.substring("command:".length()).trim();
            if (t.isEmpty() || !t.contains("{qps}")) {
                throw SweepRequest.bad("provisionerControl", "the command must contain {qps} (and usually {burst})");
            }
            return new Control(ControlKind.COMMAND, t);
        }
        throw SweepRequest.bad("provisionerControl", "'" + spec + "' is not stand-in, deployment:NAMESPACE/NAME"
                + "[/CONTAINER] or command:TEMPLATE");
    }

    /** A copy of {@code base} with the cell's settings. */
    static RunRequest runRequest(RunRequest base, Cell c) {
        RunRequest r = JsonFormat.MAPPER.convertValue(base, RunRequest.class);
        r.qps = c.qps();
        r.burst = c.burst();
        r.threads = c.threads();
        if (c.population() != null) {
            r.population = c.population();
            r.keepPopulation = !r.local; // a real cluster's is kept between runs; the sweep removes it at its end
        }
        if (r.local && c.provisionerQps() != null) {
            r.localProvisionerQps = c.provisionerQps();
            r.localProvisionerBurst = c.provisionerBurst();
        }
        return r;
    }

    /** The run's stand-in or csi-provisioner setting as text: "5/10", "unlimited", or null. */
    public static String provisionerText(Cell c) {
        if (c.provisionerQps() == null) {
            return null;
        }
        return c.provisionerQps() < 0 ? "unlimited" : fmt(c.provisionerQps()) + "/" + c.provisionerBurst();
    }
}
