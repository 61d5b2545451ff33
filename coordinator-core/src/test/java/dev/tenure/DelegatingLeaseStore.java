package dev.tenure;

import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** Forwards every call to an {@link FaultyLeaseStore}; a test overrides single operations to inject faults. */
class DelegatingLeaseStore implements LeaseStore {

    final FaultyLeaseStore inner;

    DelegatingLeaseStore(FaultyLeaseStore inner) {
        this.inner = inner;
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean fencingToken) {
        return inner.tryAcquire(key, owner, ttl, fencingToken);
    }

    @Override
    public CompletableFuture<Boolean> renew(String key, String owner, Duration ttl) {
        return inner.renew(key, owner, ttl);
    }

    @Override
    public CompletableFuture<Boolean> release(String key, String owner) {
        return inner.release(key, owner);
    }

    @Override
    public CompletableFuture<AcquireResult> handOff(
            String key, String fromOwner, String toOwner, Duration ttl, boolean fencingToken) {
        return inner.handOff(key, fromOwner, toOwner, ttl, fencingToken);
    }

    @Override
    public boolean atomicHandOff() {
        return inner.atomicHandOff();
    }

    @Override
    public AutoCloseable subscribeReleases(String key, Runnable onRelease) {
        return inner.subscribeReleases(key, onRelease);
    }

    @Override
    public void close() {
        inner.close();
    }
}
