package dev.provbench.cli;

import dev.provbench.load.LoadRun;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The run in progress, so that SIGTERM/SIGINT (Quarkus shutdown) aborts it and waits until it has cleaned up
 * what it created and written its report.
 */
@ApplicationScoped
public class ActiveRun {
    private static final Logger LOG = Logger.getLogger(ActiveRun.class);
    private volatile LoadRun run;
    private volatile CountDownLatch done = new CountDownLatch(0);

    void begin() {
        done = new CountDownLatch(1);
    }

    void set(LoadRun r) {
        run = r;
    }

    void end() {
        run = null;
        done.countDown();
    }

    void onShutdown(@Observes ShutdownEvent event) throws InterruptedException {
        LoadRun r = run;
        if (r != null) {
            LOG.info("stopping: aborting the run, cleaning up and writing the report");
            r.abort();
        }
        if (!done.await(10, TimeUnit.MINUTES)) {
            LOG.warn("the run did not finish its cleanup in time");
        }
    }
}
