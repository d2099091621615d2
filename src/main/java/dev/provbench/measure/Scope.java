package dev.provbench.measure;

/**
 * What each section's figures count, where that is not only the run's own objects (the report's {@code scopes},
 * {@link dev.provbench.report.SectionKind#scope}): one statement per JSON path, here so that two kinds writing one
 * path say the same. A figure of a component is shared with every other tenant of that component unless its source
 * tells objects apart; {@code window.sharedWith} says whether other tenants were seen.
 */
final class Scope {
    private Scope() {
    }

    static final String DRIVER = "own: the run's volumes (pvc-<claim UID>) from the driver's call log; "
            + "driver.totals is shared: the driver's counters, every tenant's calls";
    static final String STAGES = "own: the run's claims, joined with the driver's calls by volume name";
    static final String OWN_REQUESTS = "own: requests naming one of the run's claims, their PVs or their Events "
            + "(LISTs and WATCHes name no object: they are in components only)";
    static final String COMPONENTS = "shared: every request each component sent in the window, other tenants' "
            + "included (the tool's own are the run's)";
    static final String PROVISIONER_BUCKET = "shared: csi-provisioner's one token bucket serves every tenant's claims";
    static final String SERVER = "shared: kube-apiserver's priority levels, every client's requests";
    static final String PROVISIONER = "shared: csi-provisioner's whole process, every tenant's claims";
    static final String RESOURCES = "shared: each component's whole process (the tool's own is the run's)";
}
