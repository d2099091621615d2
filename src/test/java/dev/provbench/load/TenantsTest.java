package dev.provbench.load;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link Tenants}: which PVs are another tenant's of the run's provisioner, counted as they appear and go. */
class TenantsTest {
    private static Views.Volume pv(String name, String ns, String claim, String sc, String driver) {
        return new Views.Volume(name, "1", ns, claim, "h-" + name, "Bound", sc, driver, "Delete");
    }

    @Test
    void countsOtherClaimsOfTheClassOrTheDriverAndNeverTheRunsOwn() {
        Tenants t = new Tenants(new RunNamespaces("ns", 1), "r1", "fast");
        t.driver("d.example");
        t.appeared(pv("pvc-1", "ns", "pb-r1-1", "fast", "d.example")); // the run's own
        t.appeared(pv("pvc-2", "ns", "pb-r2-1", "fast", "d.example")); // another run, same namespace
        t.appeared(pv("pvc-3", "other", "pb-r1-1", "fast", "d.example")); // same name, another namespace
        t.appeared(pv("pvc-4", "other", "data", "slow", "d.example")); // another class of the same driver
        t.appeared(pv("pvc-5", "other", "data", "nfs", "nfs.example")); // another provisioner: not a tenant
        t.gone(pv("pvc-1", "ns", "pb-r1-1", "fast", "d.example"));
        t.gone(pv("pvc-2", "ns", "pb-r2-1", "fast", "d.example"));
        Tenants.Count c = t.read();
        assertEquals(3, c.appeared());
        assertEquals(1, c.gone());
        assertEquals(Map.of("fast", 2L, "slow", 1L), c.byStorageClass());
    }

    @Test
    void beforeThePreflightNamedTheDriverOnlyTheClassCounts() {
        Tenants t = new Tenants(new RunNamespaces("ns", 1), "r1", "fast");
        t.appeared(pv("pvc-1", "x", "c", "slow", "d.example"));
        t.appeared(pv("pvc-2", "x", "c", "fast", "d.example"));
        assertEquals(1, t.read().appeared());
    }

    @Test
    void storageClassesPastTheBoundAreSummed() {
        Tenants t = new Tenants(new RunNamespaces("ns", 1), "r1", "fast");
        t.driver("d");
        for (int i = 0; i < Tenants.MAX_CLASSES + 5; i++) {
            t.appeared(pv("pvc-" + i, "x", "c", "sc-" + i, "d"));
        }
        Map<String, Long> by = t.read().byStorageClass();
        assertEquals(Tenants.MAX_CLASSES + 1, by.size());
        assertEquals(5L, by.get(Tenants.OTHER));
        assertEquals(Tenants.MAX_CLASSES + 5, t.read().appeared());
    }
}
