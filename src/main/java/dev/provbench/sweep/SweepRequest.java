package dev.provbench.sweep;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.provbench.run.RunRequest;
import dev.provbench.util.Durations;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Every option of a sweep — the single definition, as {@link RunRequest} is for a run: {@code provbench sweep}
 * binds its flags to these fields, {@code POST /api/sweeps} reads them as JSON. The axes are comma lists (one
 * value = fixed); {@link #run} holds every other option of {@code provbench run}, applied to every run of the
 * sweep (on the command line they are the sweep's own flags, minus the ones an axis replaces:
 * {@link #REPLACED}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SweepRequest {
    /** Options of {@code provbench run} that an axis of the sweep replaces. */
    public static final Set<String> REPLACED = Set.of("--qps", "--burst", "--threads", "--local-provisioner-qps",
            "--local-provisioner-burst", "--population", "--keep-population");
    /** At most this many values per axis, cells, repeats and runs. */
    static final int MAX_VALUES = 16;
    static final int MAX_CELLS = 64;
    static final int MAX_REPEATS = 100;
    static final int MAX_RUNS = 1000;

    @Option(names = "--qps", description = "Axis: provbench's client QPS, a comma list (negative = unlimited, 0 = "
            + "client-go's default; default ${DEFAULT-VALUE}).")
    public String qps = "5";

    @Option(names = "--burst", description = "Axis: provbench's client burst, a comma list (default: 2 × QPS for "
            + "each QPS, 10 for 0, none when unlimited).")
    public String burst;

    @Option(names = "--provisioner-qps", description = "Axis: csi-provisioner's --kube-api-qps, a comma list "
            + "(negative = unlimited). Without it csi-provisioner keeps what it has (--local: the stand-in's "
            + "default 5/10).")
    public String provisionerQps;

    @Option(names = "--provisioner-burst", description = "Axis: csi-provisioner's --kube-api-burst, a comma list "
            + "(default: 2 × --provisioner-qps for each, as in the 2020 table).")
    public String provisionerBurst;

    @Option(names = "--population", description = "Axis: the standing population beside each run (run's "
            + "--population; its mode from --population-mode), a comma list such as 0,1000,10000. The runs go by "
            + "population, smallest first, in a random order within each, so the population only grows and is kept "
            + "between runs; it is removed after the last run unless --keep-population.")
    public String population;

    @Option(names = "--keep-population", description = "Leave the population in place after the sweep.")
    public boolean keepPopulation;

    @Option(names = "--threads", description = "Axis: workers, a comma list (default ${DEFAULT-VALUE}).")
    public String threads = "64";

    @Option(names = "--repeats", description = "Runs per cell (default ${DEFAULT-VALUE}; 1 to 100). With fewer than "
            + "6 the medians' 95 %% intervals are infinite; with 3 against 3 no difference is significant at 0.05.")
    public int repeats = 5;

    @Option(names = "--seed", description = "Seed of the random run order (default: a random one; printed).")
    public Long seed;

    @Option(names = "--provisioner-control", description = "How csi-provisioner gets each --provisioner-qps/"
            + "--provisioner-burst: stand-in (implied by --local), deployment:NAMESPACE/NAME[/CONTAINER] (patch "
            + "the container's --kube-api-qps/--kube-api-burst args, wait for the rollout, restore them at the end), "
            + "or command:TEMPLATE (run it with {qps} and {burst} substituted and wait for exit 0, e.g. "
            + "'command:hack/local-cluster restart-provisioner --qps {qps} --burst {burst}').")
    public String provisionerControl;

    @Option(names = "--control-timeout", description = "How long one reconfiguration of csi-provisioner may take "
            + "(default ${DEFAULT-VALUE}).")
    public String controlTimeout = "5m";

    @Option(names = "--tolerance", description = "Recommendation: the smallest provisioner setting within this "
            + "many percent of the best cell's median ops/s and not significantly below it (default "
            + "${DEFAULT-VALUE}).")
    public double tolerance = 5;

    @Option(names = "--alpha", description = "Significance level of the Mann-Whitney U tests (default "
            + "${DEFAULT-VALUE}; 0.001 to 0.5).")
    public double alpha = 0.05;

    /** The options of every run; the axes override its qps, burst, threads and stand-in provisioner settings. */
    public RunRequest run = new RunRequest();

    /** A field with a bad value, named by its JSON name; {@link RunRequest.Invalid#flag()} gives the flag. */
    static RunRequest.Invalid bad(String field, String message) {
        return new RunRequest.Invalid(field, message);
    }

    static List<Double> numbers(String field, String list) {
        List<Double> out = new ArrayList<>();
        if (list == null || list.isBlank()) {
            throw bad(field, "is empty");
        }
        String[] parts = list.split(",", -1);
        if (parts.length > MAX_VALUES) {
            throw bad(field, "lists more than " + MAX_VALUES + " values");
        }
        for (String p : parts) {
            String t = p.trim();
            if (t.equalsIgnoreCase("unlimited")) {
                out.add(-1.0);
                continue;
            }
            try {
                double v = Double.parseDouble(t);
                if (Double.isNaN(v) || Double.isInfinite(v) || !t.matches("-?[0-9]+(\\.[0-9]+)?")) {
                    throw new NumberFormatException();
                }
                if (out.contains(v) || v < 0 && out.stream().anyMatch(x -> x < 0)) {
                    throw bad(field, "lists " + t + " twice");
                }
                out.add(v);
            } catch (NumberFormatException e) {
                throw bad(field, "'" + t + "' is not a number");
            }
        }
        return out;
    }

    static List<Integer> integers(String field, String list) {
        List<Integer> out = new ArrayList<>();
        for (double v : numbers(field, list)) {
            if (v != Math.rint(v) || v < 0 || v > Integer.MAX_VALUE) {
                throw bad(field, "'" + SweepPlan.fmt(v) + "' is not a whole number ≥ 0");
            }
            out.add((int) v);
        }
        return out;
    }

    /** The burst that goes with {@code qps} when none is listed: 2 × QPS, client-go's 10 for 0, 0 when unlimited. */
    static int defaultBurst(double qps) {
        return qps < 0 ? 0 : qps == 0 ? 10 : (int) Math.max(1, Math.ceil(2 * qps));
    }

    Duration controlTimeout() {
        try {
            Duration d = Durations.parse(controlTimeout);
            if (d.isNegative() || d.isZero() || d.compareTo(Duration.ofHours(1)) > 0) {
                throw bad("controlTimeout", "must be greater than 0 and at most 1h");
            }
            return d;
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw bad("controlTimeout", e.getMessage());
        }
    }
}
