package dev.tenure;

import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** A lease store in memory, on a given ticker, for unit tests of the engine's logic. Can be made to fail. */
final class InMemoryLeaseStore implements LeaseStore {

    record Entry(String owner, long expiresAt) {
    }

    final Map<String, Entry> leases = new ConcurrentHashMap<>();
    final Map<String, AtomicLong> fences = new ConcurrentHashMap<>();
    final Map<String, List<Runnable>> subscribers = new ConcurrentHashMap<>();
    final AtomicBoolean down = new AtomicBoolean();
    final AtomicInteger calls = new AtomicInteger();
    private final Ticker ticker;
    private final boolean atomicHandOff;

    InMemoryLeaseStore(Ticker ticker) {
        this(ticker, false);
    }

    InMemoryLeaseStore(Ticker ticker, boolean atomicHandOff) {
        this.ticker = ticker;
        this.atomicHandOff = atomicHandOff;
    }

    @Override
    public boolean atomicHandOff() {
        return atomicHandOff;
    }

    @Override
    public CompletableFuture<AcquireResult> handOff(String key, String from, String to, Duration ttl, boolean token) {
        if (!atomicHandOff) {
            return LeaseStore.super.handOff(key, from, to, ttl, token);
        }
        return run(() -> {
            Entry e = live(key);
            if (e == null || !e.owner().equals(from)) {
                return AcquireResult.held(e == null ? "" : e.owner(), 0);
            }
            leases.put(key, new Entry(to, ticker.nanoTime() + ttl.toNanos()));
            return AcquireResult.acquired(token ? fences.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet() : 0);
        });
    }

    private synchronized <T> CompletableFuture<T> run(java.util.function.Supplier<T> op) {
        calls.incrementAndGet();
        if (down.get()) {
            return CompletableFuture.failedFuture(new LeaseStoreUnavailableException("store is down (test)", null, null));
        }
        return CompletableFuture.completedFuture(op.get());
    }

    private Entry live(String key) {
        Entry e = leases.get(key);
        if (e != null && ticker.nanoTime() >= e.expiresAt()) {
            leases.remove(key, e);
            return null;
        }
        return e;
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean token) {
        return run(() -> {
            Entry e = live(key);
            if (e != null) {
                return AcquireResult.held(e.owner(), (e.expiresAt() - ticker.nanoTime()) / 1_000_000);
            }
            leases.put(key, new Entry(owner, ticker.nanoTime() + ttl.toNanos()));
            return AcquireResult.acquired(token ? fences.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet() : 0);
        });
    }

    @Override
    public CompletableFuture<Boolean> renew(String key, String owner, Duration ttl) {
        return run(() -> {
            Entry e = live(key);
            if (e == null || !e.owner().equals(owner)) {
                return false;
            }
            leases.put(key, new Entry(owner, ticker.nanoTime() + ttl.toNanos()));
            return true;
        });
    }

    @Override
    public CompletableFuture<Boolean> release(String key, String owner) {
        CompletableFuture<Boolean> r = run(() -> {
            Entry e = live(key);
            return e != null && e.owner().equals(owner) && leases.remove(key, e);
        });
        if (!r.isCompletedExceptionally() && Boolean.TRUE.equals(r.getNow(false))) {
            subscribers.getOrDefault(key, List.of()).forEach(Runnable::run);
        }
        return r;
    }

    @Override
    public AutoCloseable subscribeReleases(String key, Runnable onRelease) {
        subscribers.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(onRelease);
        return () -> subscribers.get(key).remove(onRelease);
    }

    @Override
    public void close() {
    }
}
