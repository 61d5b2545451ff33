package dev.tenure;

import dev.tenure.metrics.LeaseMetrics;
import dev.tenure.spi.LeaseStore;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * One daemon thread per engine that renews every registered lease and declares it LOST when a renewal is
 * refused or its local validity runs out. Renewals are fired asynchronously and all at once for every lease
 * that is due (or nearly due: within a tenth of its period), so the store can coalesce them into few calls;
 * nothing here waits for the store. After a failed renewal it retries sooner (a quarter period), until the
 * validity deadline, which it enforces on its own clock whether or not a request is still in flight. A renewal is
 * sent with the lease's TTL of the moment, and only while no other call moving its expiry is in flight (a TTL change).
 */
final class Watchdog implements AutoCloseable {

    /**
     * The longest the watchdog sleeps without a reason to look (a safety net: every change that makes a lease due
     * earlier wakes it). Each look visits every lease, so this bounds the cost of many idle leases: 10,000 leases cost
     * about 4 passes a second, not 20 as with 50 ms.
     */
    private static final long MAX_SLEEP_NANOS = 250_000_000L;

    private static final long MIN_RETRY_NANOS = 5_000_000L;

    private final Set<DefaultLease> leases = ConcurrentHashMap.newKeySet();
    private final LeaseStore store;
    private final Ticker ticker;
    private final LeaseMetrics metrics;
    /** How long a failed renewal may still take effect in the store. */
    private final long settleNanos;

    private final Thread thread;
    private volatile boolean closed;
    /** When the watchdog thread means to look next; registering a lease due earlier wakes it. */
    private volatile long plannedWake = Long.MIN_VALUE;

    /** This node's name, for log lines; null: the owner id. */
    private final @Nullable String nodeName;

    Watchdog(LeaseStore store, Ticker ticker, LeaseMetrics metrics, long settleNanos, @Nullable String nodeName) {
        this.nodeName = nodeName;
        this.store = store;
        this.ticker = ticker;
        this.metrics = metrics;
        this.settleNanos = settleNanos;
        this.thread = new Thread(this::loop, "tenure-watchdog");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    void register(DefaultLease lease) {
        leases.add(lease);
        rescheduled(lease);
    }

    /** After {@code lease}'s deadline or next renewal moved outside the watchdog: wakes it if now due before its next look. */
    void rescheduled(DefaultLease lease) {
        long planned = plannedWake;
        if (planned == Long.MIN_VALUE || Math.min(lease.validUntil(), lease.nextRenewAt()) - planned < 0) {
            LockSupport.unpark(thread); // due before the watchdog's next look (or it is mid-pass)
        }
    }

    void unregister(DefaultLease lease) {
        leases.remove(lease);
    }

    /** Makes the watchdog look at its leases now (tests that move a settable ticker use this). */
    void wakeUp() {
        LockSupport.unpark(thread);
    }

    java.util.List<DefaultLease> snapshot() {
        return java.util.List.copyOf(leases);
    }

    int size() {
        return leases.size();
    }

    private void loop() {
        while (!closed) {
            long now = ticker.nanoTime();
            long wake = now + MAX_SLEEP_NANOS;
            for (DefaultLease lease : leases) {
                try {
                    wake = Math.min(wake, visit(lease, now));
                } catch (RuntimeException | Error e) {
                    // never let one lease (or a store that throws instead of failing its future) stop the watchdog
                    LeaseEngine.LOG.error("watchdog failed on lease '{}'", lease.key(), e);
                }
            }
            plannedWake = wake;
            long sleep = wake - ticker.nanoTime();
            if (sleep > 0) {
                LockSupport.parkNanos(this, sleep);
            }
            plannedWake = Long.MIN_VALUE;
        }
    }

    /** Handles one lease; returns when it next needs a look. */
    private long visit(DefaultLease lease, long now) {
        if (lease.state() != LeaseState.ACTIVE) {
            leases.remove(lease);
            return Long.MAX_VALUE;
        }
        if (lease.refused) {
            lose(lease, "the store refused the renewal: it no longer holds this owner's lease");
            return Long.MAX_VALUE;
        }
        if (now >= lease.validUntil()) {
            lose(lease, "no successful renewal before the local validity deadline");
            return Long.MAX_VALUE;
        }
        if (!lease.options().renew()) {
            return lease.validUntil();
        }
        if (!lease.callInFlight() && now >= lease.nextRenewAt() - lease.renewWindow() && lease.startCall()) {
            try {
                renew(lease);
            } catch (RuntimeException | Error e) {
                lease.endCall();
                throw e;
            }
        }
        // Wake when the earliest lease is due; that pass also renews everything due within the next window.
        return lease.callInFlight() ? lease.validUntil() : Math.min(lease.validUntil(), lease.nextRenewAt());
    }

    private void lose(DefaultLease lease, String reason) {
        leases.remove(lease);
        if (lease.markLost(reason)) {
            metrics.lost();
            LeaseEngine.LOG.warn(
                    "lease '{}' of {} LOST: {}", lease.key(), LeaseEngine.shown(nodeName, lease.owner()), reason);
        }
    }

    /** Sends one renewal; the caller has taken the lease's call slot, which the answer frees. */
    private void renew(DefaultLease lease) {
        LeaseOptions term = lease.options();
        long sentAt = ticker.nanoTime();
        LeaseEngine.send(() -> store.renew(lease.key(), lease.owner(), term.ttl()))
                .whenComplete((ok, err) -> {
                    boolean success = err == null && Boolean.TRUE.equals(ok);
                    if (err != null) {
                        metrics.renewFailure();
                        lease.callFailed(sentAt, term, ticker.nanoTime() + settleNanos);
                        lease.renewAt(ticker.nanoTime()
                                + Math.max(MIN_RETRY_NANOS, term.renewEvery().toNanos() / 4));
                    } else if (success) {
                        lease.renewed(sentAt, term);
                    } else {
                        lease.refused = true;
                    }
                    lease.endCall();
                    if (success) {
                        // only if due before the next planned look (a short TTL): one wake per renewal would make every
                        // answer of a large batch a full pass over all leases
                        rescheduled(lease);
                    } else {
                        LockSupport.unpark(thread); // a refusal or a failure needs a look now
                    }
                });
    }

    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
