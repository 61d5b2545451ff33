package dev.tenure.memory;

import dev.tenure.Ticker;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LeaseStore} in memory, for users' unit tests: {@code Tenure.inMemory()} builds one (with the in-memory
 * run ledger); {@code Leases.of(new InMemoryLeaseStore(ticker))} is for tests that move time themselves. <b>Single process only</b>: it coordinates the threads of one JVM, never two processes,
 * and it forgets everything when the JVM ends. It passes the same {@code LeaseStoreContract} as the Valkey and database
 * stores; expiry follows the given {@link Ticker}, so a test can move time instead of sleeping.
 *
 * <p>For tests that need a lost lease: {@link #expire} ends a lease as a TTL would, {@link #takeOver} gives it to
 * another owner with a new fencing token (as a failover or a newer claim would). Thread-safe.
 */
public class InMemoryLeaseStore implements LeaseStore {

    private record Entry(String owner, long expiresAt) {}

    private final Map<String, Entry> leases = new ConcurrentHashMap<>();
    private final Map<String, Long> tokens = new ConcurrentHashMap<>();
    private final Map<String, String> epochOwners = new ConcurrentHashMap<>();
    private final Map<String, List<Runnable>> subscribers = new ConcurrentHashMap<>();
    private final Ticker ticker;

    /** On the system's monotonic clock. */
    public InMemoryLeaseStore() {
        this(Ticker.system());
    }

    /** On {@code ticker} (a settable one in tests). */
    public InMemoryLeaseStore(Ticker ticker) {
        this.ticker = ticker;
    }

    /**
     * Runs one store operation atomically and returns its answer as a completed future. Subclasses in tests may
     * override it to count calls or inject faults (a failed future), calling {@code super.call(op)} to proceed.
     */
    protected synchronized <T> CompletableFuture<T> call(Supplier<T> op) {
        return CompletableFuture.completedFuture(op.get());
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean fencingToken) {
        return call(() -> {
            Entry e = live(key);
            if (e != null) {
                return AcquireResult.held(e.owner(), (e.expiresAt() - ticker.nanoTime()) / 1_000_000);
            }
            return grant(key, owner, ttl, fencingToken);
        });
    }

    @Override
    public CompletableFuture<Boolean> renew(String key, String owner, Duration ttl) {
        return call(() -> {
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
        CompletableFuture<Boolean> r = call(() -> {
            Entry e = live(key);
            boolean ours = e != null && e.owner().equals(owner) && leases.remove(key, e);
            if (ours) {
                epochOwners.remove(key, owner);
            }
            return ours;
        });
        r.thenAccept(
                released -> { // a subclass may fail the call (fault injection): then nobody is notified
                    if (released) {
                        notifyReleased(key);
                    }
                });
        return r;
    }

    /** One atomic step: the key is never free in between. */
    @Override
    public CompletableFuture<AcquireResult> handOff(
            String key, String fromOwner, String toOwner, Duration ttl, boolean fencingToken) {
        return call(() -> {
            Entry e = live(key);
            if (e == null || !e.owner().equals(fromOwner)) {
                return AcquireResult.held(e == null ? "" : e.owner(), 0);
            }
            return grant(key, toOwner, ttl, fencingToken);
        });
    }

    @Override
    public boolean atomicHandOff() {
        return true;
    }

    @Override
    public AutoCloseable subscribeReleases(String key, Runnable onRelease) {
        subscribers.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(onRelease);
        return () -> subscribers.getOrDefault(key, List.of()).remove(onRelease);
    }

    /** The owner of the live lease on {@code key}, if any. */
    public Optional<String> holder(String key) {
        return Optional.ofNullable(live(key)).map(Entry::owner);
    }

    /** The last fencing token handed out for {@code key} (0 if none): the epoch of its latest holder. */
    public long fencingToken(String key) {
        return tokens.getOrDefault(key, 0L);
    }

    /**
     * The owner the current epoch ({@link #fencingToken}) belongs to, whether its lease is live or has expired (as the
     * database's {@code owner} column); empty once that owner released it.
     */
    public Optional<String> epochOwner(String key) {
        return Optional.ofNullable(epochOwners.get(key));
    }

    /** The keys with a live lease, sorted. */
    public Set<String> heldKeys() {
        Set<String> held = new TreeSet<>();
        leases.keySet().forEach(k -> holder(k).ifPresent(o -> held.add(k)));
        return held;
    }

    /** For tests: ends the lease on {@code key} as if its TTL had run out (its holder's next renewal is refused). */
    public void expire(String key) {
        call(() -> leases.remove(key));
    }

    /**
     * For tests: gives {@code key} to {@code owner} with a new fencing token for {@code ttl}, whoever held it, as a
     * newer claim after a failover would: the old holder's renewals and fence checks are refused from now on.
     */
    public long takeOver(String key, String owner, Duration ttl) {
        return call(() -> grant(key, owner, ttl, true)).join() instanceof AcquireResult.Acquired a
                ? a.fencingToken().orElseThrow()
                : 0;
    }

    private AcquireResult grant(String key, String owner, Duration ttl, boolean fencingToken) {
        leases.put(key, new Entry(owner, ticker.nanoTime() + ttl.toNanos()));
        epochOwners.put(key, owner);
        long token = tokens.merge(key, 1L, Long::sum);
        return new AcquireResult.Acquired(fencingToken ? OptionalLong.of(token) : OptionalLong.empty(), false);
    }

    private @Nullable Entry live(String key) {
        Entry e = leases.get(key);
        if (e != null && ticker.nanoTime() - e.expiresAt() >= 0) {
            leases.remove(key, e);
            return null;
        }
        return e;
    }

    private void notifyReleased(String key) {
        for (Runnable r : subscribers.getOrDefault(key, List.of())) {
            r.run();
        }
    }

    /** Nothing to close; the leases stay readable. */
    @Override
    public void close() {}
}
