package dev.provbench.measure;

import dev.provbench.evidence.AuditLog;
import dev.provbench.load.RunWindow;

import java.nio.file.Path;
import java.util.Map;

/**
 * {@code components} against a real kube-apiserver: the requests it received in the window, by component
 * (load driver, csi-provisioner, kube-controller-manager, …), from its JSON audit log; per op over the
 * window's ops.
 */
public final class AuditLogRequests implements Measurement {
    /** kube-apiserver writes its audit log in batches; wait this long after the run before reading it. */
    static final long FLUSH_MILLIS = 2000;
    private final Path log;
    private Map<String, AuditLog.Counts> counts;
    private String problem;

    public AuditLogRequests(Path log) {
        this.log = log;
    }

    @Override
    public void finish(RunWindow w) {
        try {
            Thread.sleep(FLUSH_MILLIS);
            counts = AuditLog.byComponent(log, w.start(), w.end());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problem = "interrupted";
        } catch (Exception e) {
            problem = e.getClass().getSimpleName();
        }
    }

    @Override
    public void report(ReportDraft d) {
        if (counts == null) {
            d.warn("cannot read the audit log " + log + ": " + problem);
            return;
        }
        counts.forEach((name, c) -> d.component(name, new dev.provbench.report.RunReport.Requests(c.requests(),
                c.byVerb(), c.byVerbResource(), c.byCode(), d.perOp(c.requests()), null)));
    }
}
