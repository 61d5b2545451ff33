package dev.tenure.bench;

import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * A {@link LeaseStore} decorator that times every renewal, from the watchdog's call to the answer, and counts
 * renewals, refusals and failures. Everything else passes through.
 */
final class TimedRenewals implements LeaseStore {

    private final LeaseStore store;
    private final Recorder latency = new Recorder(60_000_000_000L, 3);
    final LongAdder renewals = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder failed = new LongAdder();

    TimedRenewals(LeaseStore store) {
        this.store = store;
    }

    /** Renewal latencies (ns) since the last call. */
    org.HdrHistogram.Histogram interval() {
        return latency.getIntervalHistogram();
    }

    @Override
    public CompletableFuture<Boolean> renew(String key, String owner, Duration ttl) {
        long t0 = System.nanoTime();
        return store.renew(key, owner, ttl).whenComplete((ok, err) -> {
            latency.recordValue(Math.min(System.nanoTime() - t0, 60_000_000_000L));
            renewals.increment();
            if (err != null) {
                failed.increment();
            } else if (!Boolean.TRUE.equals(ok)) {
                refused.increment();
            }
        });
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean fencingToken) {
        return store.tryAcquire(key, owner, ttl, fencingToken);
    }

    @Override
    public CompletableFuture<Boolean> release(String key, String owner) {
        return store.release(key, owner);
    }

    @Override
    public CompletableFuture<AcquireResult> handOff(
            String key, String fromOwner, String toOwner, Duration ttl, boolean fencingToken) {
        return store.handOff(key, fromOwner, toOwner, ttl, fencingToken);
    }

    @Override
    public boolean atomicHandOff() {
        return store.atomicHandOff();
    }

    @Override
    public Duration longestCall() {
        return store.longestCall();
    }

    @Override
    public AutoCloseable subscribeReleases(String key, Runnable onRelease) {
        return store.subscribeReleases(key, onRelease);
    }

    @Override
    public void close() {
        store.close();
    }
}
