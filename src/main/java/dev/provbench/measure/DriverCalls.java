package dev.provbench.measure;

import dev.provbench.evidence.DriverCounts;
import dev.provbench.load.RunWindow;
import dev.provbench.report.RunReport;
import org.jboss.logging.Logger;

/**
 * {@code driver}: the mock driver's own counts over the window — volumes it created and deleted, and the
 * CreateVolume/DeleteVolume calls it answered OK — read at the window's edges (in-process with
 * {@code --local}, else from {@code --driver-url}).
 */
public final class DriverCalls implements Measurement {
    private static final Logger LOG = Logger.getLogger(DriverCalls.class);
    private final DriverCounts source;
    private DriverCounts.Counts atStart;
    private DriverCounts.Counts atEnd;

    public DriverCalls(DriverCounts source) {
        this.source = source;
    }

    private DriverCounts.Counts read() {
        try {
            return source.read();
        } catch (Exception e) {
            LOG.warnf("cannot read the driver's counts from %s: %s", source.source(), e.getMessage());
            return null;
        }
    }

    @Override
    public void windowStart(RunWindow w) {
        atStart = read();
    }

    @Override
    public void windowEnd(RunWindow w) {
        atEnd = read();
    }

    @Override
    public void report(ReportDraft d) {
        if (atStart == null || atEnd == null) {
            d.warn("the driver's counts could not be read from " + source.source());
            return;
        }
        DriverCounts.Counts c = atEnd.minus(atStart);
        d.driver(new RunReport.Driver(c.volumesCreated(), c.volumesDeleted(), c.createVolumeOk(), c.deleteVolumeOk(),
                source.source(), null));
    }
}
