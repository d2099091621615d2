package dev.provbench.sweep;

import dev.provbench.run.RunLimits;
import dev.provbench.run.RunRequest;
import dev.provbench.stats.Summary;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SweepPlanTest {

    private static SweepRequest local(String qps, String provisionerQps, int repeats, long seed) {
        SweepRequest q = new SweepRequest();
        q.run.local = true;
        q.qps = qps;
        q.provisionerQps = provisionerQps;
        q.repeats = repeats;
        q.seed = seed;
        return q;
    }

    private static SweepPlan plan(SweepRequest q) {
        return SweepPlan.of(q, RunLimits.Values.DEFAULT, Map.of());
    }

    @Test
    void cellsAreTheAxesCombinedAndBurstDefaultsToTwiceQps() {
        SweepPlan p = plan(local("5,-1", "5,10,25,50", 5, 1));
        assertEquals(8, p.cells().size());
        assertEquals(List.of("qps", "burst", "provisioner-qps", "provisioner-burst"), p.varying());
        SweepPlan.Cell c = p.cells().get(2);
        assertEquals(5, c.qps());
        assertEquals(10, c.burst());
        assertEquals(25, c.provisionerQps());
        assertEquals(50, c.provisionerBurst());
        assertEquals("BenchmarkPVCChurn/qps=5/burst=10/provisioner-qps=25/provisioner-burst=50",
                c.benchName(p.varying()));
        assertEquals(0, p.cells().get(4).burst(), "unlimited: no burst");
        // each run's request carries the cell: the stand-in's bucket and the client's
        SweepPlan.Planned any = p.order().stream().filter(x -> x.cell() == c).findFirst().orElseThrow();
        assertEquals(25, any.checked().request().localProvisionerQps);
        assertEquals(50, any.checked().request().localProvisionerBurst);
        assertEquals(5, any.checked().request().qps);
    }

    @Test
    void theOrderIsRandomButRepeatableFromTheSeedAndCoversEveryRepeat() {
        SweepPlan a = plan(local("-1", "5,10,25,50", 5, 42));
        SweepPlan b = plan(local("-1", "5,10,25,50", 5, 42));
        SweepPlan c = plan(local("-1", "5,10,25,50", 5, 43));
        List<Integer> oa = a.order().stream().map(x -> x.cell().index()).toList();
        assertEquals(oa, b.order().stream().map(x -> x.cell().index()).toList());
        assertNotEquals(oa, c.order().stream().map(x -> x.cell().index()).toList());
        assertNotEquals(List.of(1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4), oa, "interleaved");
        Map<Integer, Long> perCell = oa.stream().collect(Collectors.groupingBy(i -> i, Collectors.counting()));
        assertEquals(Map.of(1, 5L, 2, 5L, 3, 5L, 4, 5L), perCell);
        // repeats count up within a cell in the order the runs come
        Map<Integer, Integer> last = new HashMap<>();
        for (SweepPlan.Planned x : a.order()) {
            assertEquals(last.getOrDefault(x.cell().index(), 0) + 1, x.repeat());
            last.put(x.cell().index(), x.repeat());
        }
    }

    /**
     * A population axis: the runs go by population, smallest first (it only grows between runs), shuffled within each;
     * every run of a real cluster keeps it (the sweep removes it after the last).
     */
    @Test
    void aPopulationAxisRunsSmallestFirstAndShufflesWithin() {
        SweepRequest q = local("5,-1", null, 3, 7);
        q.population = "10000,0,1000";
        SweepPlan p = plan(q);
        assertEquals(6, p.cells().size());
        assertEquals(List.of("qps", "burst", "population"), p.varying());
        List<Long> pops = p.order().stream().map(x -> x.cell().population()).toList();
        for (int i = 1; i < pops.size(); i++) {
            assertTrue(pops.get(i) >= pops.get(i - 1), "the population never shrinks: " + pops);
        }
        assertEquals(18, pops.size());
        assertEquals(1000L, p.order().get(6).checked().config().population());
        List<Integer> first = p.order().subList(0, 6).stream().map(x -> x.cell().index()).toList();
        SweepRequest q2 = local("5,-1", null, 3, 8);
        q2.population = "10000,0,1000";
        List<Integer> other = plan(q2).order().subList(0, 6).stream().map(x -> x.cell().index()).toList();
        assertTrue(first.stream().allMatch(i -> i <= 2) && other.stream().allMatch(i -> i <= 2));
        assertFalse(p.order().get(0).checked().config().keepPopulation(), "--local: the in-memory API ends with the run");
        assertTrue(p.cells().get(0).benchName(p.varying()).endsWith("/population=0"));
    }

    @Test
    void badValuesNameTheirField() {
        assertEquals("repeats", assertThrows(RunRequest.Invalid.class, () -> plan(local("5", "5", 0, 1))).field());
        assertEquals("provisionerQps",
                assertThrows(RunRequest.Invalid.class, () -> plan(local("5", "5,x", 3, 1))).field());
        assertEquals("qps", assertThrows(RunRequest.Invalid.class, () -> plan(local("5,5", null, 3, 1))).field());
        assertEquals("provisionerQps", assertThrows(RunRequest.Invalid.class,
                () -> plan(local("5", "5,1000000", 3, 1))).field(), "a cell past the limits names the axis");
        SweepRequest tooMany = local("1,2,3,4,5,6,7,8", "1,2,3,4,5,6,7,8,9", 1, 1);
        assertEquals("qps", assertThrows(RunRequest.Invalid.class, () -> plan(tooMany)).field());
        SweepRequest cluster = local("5", "5,10", 3, 1);
        cluster.run.local = false;
        cluster.run.storageClass = "sc";
        assertEquals("provisionerControl", assertThrows(RunRequest.Invalid.class, () -> plan(cluster)).field(),
                "a real csi-provisioner needs a way to be reconfigured");
        cluster.provisionerControl = "command:restart --burst {burst}";
        assertEquals("provisionerControl", assertThrows(RunRequest.Invalid.class, () -> plan(cluster)).field());
        cluster.provisionerControl = "deployment:provbench/provbench-driver";
        assertEquals("provbench/provbench-driver/csi-provisioner", plan(cluster).control().target());
        SweepRequest localDeployment = local("5", "5", 3, 1);
        localDeployment.provisionerControl = "deployment:a/b";
        assertEquals("provisionerControl", assertThrows(RunRequest.Invalid.class,
                () -> plan(localDeployment)).field());
    }

    @Test
    void theDeploymentsArgsGetTheRateInEitherForm() {
        assertEquals(List.of("--csi-address=/csi/csi.sock", "--kube-api-qps=20", "--kube-api-burst=40", "-v=3"),
                ProvisionerControl.DeploymentArgs.withRate(List.of("--csi-address=/csi/csi.sock",
                        "--kube-api-qps=$(KUBE_API_QPS)", "--kube-api-burst", "10", "-v=3"), "20", "40"));
        assertEquals(List.of("-v=3", "--kube-api-qps=-1", "--kube-api-burst=0"),
                ProvisionerControl.DeploymentArgs.withRate(List.of("-v=3"), "-1", "0"));
    }

    @Test
    void theCommandTemplateIsSplitWithoutAShell() {
        var c = new ProvisionerControl.Command("hack/local-cluster restart-provisioner --qps {qps} --burst {burst}",
                java.time.Duration.ofSeconds(1), java.nio.file.Path.of("/dev/null"));
        assertEquals(List.of("hack/local-cluster", "restart-provisioner", "--qps", "25", "--burst", "50"),
                c.argv(25, 50));
    }

    private static Map<String, Summary> ops(double... v) {
        return Map.of(SweepResult.OPS, Summary.of(v, 0.95));
    }

    @Test
    void theRecommendationIsTheSmallestSettingNearTheBestAndNotSignificantlyBelow() {
        SweepPlan p = plan(local("-1", "5,10,25,50", 5, 1));
        Map<Integer, Map<String, Summary>> by = new HashMap<>();
        by.put(1, ops(2.9, 2.8, 3.0, 2.9, 2.95));
        by.put(2, ops(5.8, 5.9, 5.7, 5.85, 5.9));
        by.put(3, ops(14.0, 14.3, 14.1, 13.9, 14.2)); // 97 % of the best but always below it: significant
        by.put(4, ops(14.5, 14.6, 14.4, 14.7, 14.55));
        SweepResult.Recommendation r = SweepResult.recommend(p, by).get(0);
        assertEquals(50, r.provisionerQps(), r.text());
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("not be saturated")), r.warnings().toString());

        by.put(3, ops(14.6, 14.3, 14.7, 14.4, 14.5)); // overlaps the best: not significantly below
        r = SweepResult.recommend(p, by).get(0);
        assertEquals(25, r.provisionerQps(), r.text());
        assertTrue(r.text().startsWith("recommend --kube-api-qps=25 --kube-api-burst=50: 14.50 ops/s (99.7 % of the best, p=0.672)"), r.text());

        SweepPlan three = plan(local("-1", "5,20", 3, 1));
        Map<Integer, Map<String, Summary>> small = new HashMap<>();
        small.put(1, ops(3.0, 3.1, 3.2));
        small.put(2, ops(10.4, 10.6, 11.6));
        r = SweepResult.recommend(three, small).get(0);
        assertEquals(20, r.provisionerQps(), "outside the tolerance, whatever the p-value");
        assertTrue(r.warnings().stream().anyMatch(w -> w.contains("cannot go below 0.100")), r.warnings().toString());
        assertEquals(0.1, SweepResult.minimumP(3, 3), 1e-12);
        assertEquals(2.0 / 252, SweepResult.minimumP(5, 5), 1e-12);
    }

    @Test
    void withoutAProvisionerAxisThereIsNoRecommendation() {
        SweepPlan p = plan(local("5,-1", null, 2, 1));
        assertEquals(List.of("qps", "burst"), p.varying());
        assertEquals(5, p.cells().get(0).provisionerQps(), "the stand-in's default is known");
        assertTrue(SweepResult.recommend(p, Map.of()).isEmpty());
        SweepRequest cluster = local("5", null, 2, 1);
        cluster.run.local = false;
        cluster.run.storageClass = "sc";
        assertNull(plan(cluster).cells().get(0).provisionerQps(), "a real csi-provisioner keeps what it has");
    }
}
