package dev.tenure;

import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The clean-up after store calls whose outcome is unknown (failed or unanswered acquires, hand-offs and releases): the
 * lease such a call may have left in the store is released in the background. One of the {@link LeaseEngine}'s
 * concerns, on its background thread. Thread-safe.
 */
final class UnknownOutcomes {

    private static final long RETRY_MILLIS = 200;

    private final LeaseStore store;
    private final Ticker ticker;
    /** How long after giving up on a store call it may still take effect there (see {@link LeaseStore#longestCall()}). */
    private final long settleNanos;

    private final ScheduledExecutorService executor;

    UnknownOutcomes(LeaseStore store, Ticker ticker, long settleNanos, ScheduledExecutorService executor) {
        this.store = store;
        this.ticker = ticker;
        this.settleNanos = settleNanos;
        this.executor = executor;
    }

    /**
     * Releases {@code owner}'s lease on {@code key} if it exists, after a call with that owner id whose outcome is
     * unknown. Failed releases are retried until the TTL has passed. If a release finds nothing while the call may
     * still take effect in the store (it may still be queued or running there), it looks once more when the call has
     * surely ended.
     */
    void cleanUp(String key, String owner, Duration ttl) {
        long now = ticker.nanoTime();
        CleanUp c = new CleanUp(key, owner, now + ttl.toNanos(), now + settleNanos);
        executor.execute(() -> once(c, true));
    }

    private record CleanUp(String key, String owner, long until, long settledAt) {}

    private void once(CleanUp c, boolean mayLookAgain) {
        long sentAt = ticker.nanoTime();
        LeaseEngine.send(() -> store.release(c.key(), c.owner())).whenComplete((released, err) -> {
            if (err != null) {
                if (ticker.nanoTime() < c.until()) {
                    later(() -> once(c, mayLookAgain), TimeUnit.MILLISECONDS.toNanos(RETRY_MILLIS));
                }
            } else if (!Boolean.TRUE.equals(released) && mayLookAgain && sentAt < c.settledAt()) {
                later(() -> once(c, false), c.settledAt() - ticker.nanoTime());
            }
        });
    }

    private void later(Runnable task, long delayNanos) {
        if (!executor.isShutdown()) {
            executor.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        }
    }
}
