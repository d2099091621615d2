package dev.provbench.local;

import org.jboss.logging.Logger;

import java.util.LinkedHashSet;
import java.util.Iterator;
import java.util.function.Consumer;

/**
 * A de-duplicating queue of object keys served by one thread — client-go's workqueue with one worker, as
 * kube-controller-manager's PV controller runs its claim and volume queues: a key added while it is pending is
 * queued once; a key added while it is being processed is processed again afterwards. The worker reads the
 * object's current state from a cache, not from the event that queued it.
 */
final class KeyQueue implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(KeyQueue.class);
    private final LinkedHashSet<String> pending = new LinkedHashSet<>();
    private final Thread worker;
    private boolean closed;

    KeyQueue(String name, Consumer<String> sync) {
        worker = new Thread(() -> serve(sync), name);
        worker.setDaemon(true);
        worker.start();
    }

    synchronized void add(String key) {
        if (!closed && pending.add(key)) {
            notifyAll();
        }
    }

    private synchronized String take() throws InterruptedException {
        while (pending.isEmpty() && !closed) {
            wait();
        }
        if (closed) {
            return null;
        }
        Iterator<String> first = pending.iterator();
        String key = first.next();
        first.remove();
        return key;
    }

    private void serve(Consumer<String> sync) {
        try {
            for (String key = take(); key != null; key = take()) {
                try {
                    sync.accept(key);
                } catch (RuntimeException e) {
                    LOG.debugf("%s: %s", key, e.getMessage());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            pending.clear();
            notifyAll();
        }
        worker.interrupt();
    }
}
