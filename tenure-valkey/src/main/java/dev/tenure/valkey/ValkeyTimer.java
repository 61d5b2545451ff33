package dev.tenure.valkey;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread on which a Valkey store runs its delayed chores: the end of a release channel's linger and the close
 * of a client left behind by a failover. {@code CompletableFuture.delayedExecutor} would hand each of them to the
 * common pool, which starts a thread per task on a host with two CPUs or fewer. The store that creates it closes it.
 * Thread-safe.
 */
final class ValkeyTimer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ValkeyTimer.class);

    private final ScheduledThreadPoolExecutor exec;

    ValkeyTimer() {
        exec = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tenure-valkey-timer");
            t.setDaemon(true);
            return t;
        });
        exec.setRemoveOnCancelPolicy(true);
    }

    /** Runs {@code chore} on the timer's thread after {@code delay}; after {@link #close()}, not at all. */
    void after(Duration delay, Runnable chore) {
        try {
            exec.schedule(
                    () -> {
                        try {
                            chore.run();
                        } catch (Throwable t) {
                            LOG.warn("a delayed Valkey chore failed", t);
                        }
                    },
                    delay.toNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
            LOG.debug("Valkey timer closed: chore dropped");
        }
    }

    /** Takes no new chores; those already scheduled still run when due (closing an old client), then the thread ends. */
    @Override
    public void close() {
        exec.shutdown();
    }
}
