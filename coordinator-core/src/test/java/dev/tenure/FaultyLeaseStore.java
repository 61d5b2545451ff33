package dev.tenure;

import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.spi.AcquireResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** The shipped in-memory store ({@link dev.tenure.spi.LeaseStore}), made to fail on demand ({@link #down}), counting its calls, hand-off atomic or not. */
final class FaultyLeaseStore extends InMemoryLeaseStore {

    final AtomicBoolean down = new AtomicBoolean();
    final AtomicInteger calls = new AtomicInteger();
    private final boolean atomicHandOff;

    FaultyLeaseStore(Ticker ticker) {
        this(ticker, false);
    }

    FaultyLeaseStore(Ticker ticker, boolean atomicHandOff) {
        super(ticker);
        this.atomicHandOff = atomicHandOff;
    }

    @Override
    protected synchronized <T> CompletableFuture<T> call(Supplier<T> op) {
        calls.incrementAndGet();
        if (down.get()) {
            return CompletableFuture.failedFuture(
                    new LeaseStoreUnavailableException("store is down (test)", null, null));
        }
        return super.call(op);
    }

    @Override
    public boolean atomicHandOff() {
        return atomicHandOff;
    }

    @Override
    public CompletableFuture<AcquireResult> handOff(String key, String from, String to, Duration ttl, boolean token) {
        // not atomic: as LeaseStore's default, a release and then an acquire
        return atomicHandOff
                ? super.handOff(key, from, to, ttl, token)
                : release(key, from).thenCompose(released -> tryAcquire(key, to, ttl, token));
    }
}
