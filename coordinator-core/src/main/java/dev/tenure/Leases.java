package dev.tenure;

import dev.tenure.metrics.LeaseMetrics;
import dev.tenure.spi.LeaseKeys;
import dev.tenure.spi.LeaseStore;
import dev.tenure.spi.RunLedger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

// Over 400 lines: the public lock API (acquire, tryAcquire, runLocked, acquireAll and their overloads), each documented
// here; the state machine behind it is LeaseEngine.
/**
 * Leases and locks over one {@link LeaseStore}. Thread-safe; share one per store. Every lease it grants is renewed by
 * its watchdog until released or lost. Applications get theirs from {@link Tenure}, which sets every knob
 * ({@link Tenure.Builder}): {@link Tenure#leases()} (on Valkey when it is configured) and {@link Tenure#databaseLeases()}.
 * {@link #of} and {@link #builder} over a store of your own are for store authors and tests.
 *
 * <pre>{@code
 * try (Tenure tenure = Tenure.builder().dataSource(pool).valkey(ValkeyConfig.standalone("127.0.0.1:6380").build()).build()) {
 *     Leases leases = tenure.leases();
 *     try (Lease lease = leases.acquire("coupon-42", Duration.ofMillis(500), Duration.ofSeconds(3)).orElseThrow()) {
 *         // critical section
 *     }
 *     Optional<Receipt> r = leases.runLocked("product-7", LockPolicy.failFast(), lease -> issue(...));
 * }
 * }</pre>
 *
 * Expected results are values: a key held elsewhere gives {@code Optional.empty()}. Faults are
 * {@link LeaseStoreUnavailableException}s, and they fail closed: no lease. An acquire that was sent but failed or went
 * unanswered throws its subclass {@link LeaseOutcomeUnknownException}. Bad input is an
 * {@link IllegalArgumentException} naming the value and the rule.
 *
 * <p>Interrupts: a thread whose interrupt flag is set sends no acquire, because it would not wait for the answer. The
 * acquire returns empty and the flag stays set. A thread interrupted while its attempt is in flight gets a
 * {@link LeaseOutcomeUnknownException}, again with the flag kept.
 */
public final class Leases implements AutoCloseable {

    private final LeaseEngine engine;
    private final LeaseStore store;
    private final LeaseOptions defaults;
    private final boolean ownsStore;
    private final Ticker ticker;
    private final Duration callTimeout;

    private Leases(Builder b) {
        this.ticker = b.ticker;
        this.callTimeout = b.callTimeout;
        this.store = b.store;
        this.defaults = b.defaults;
        this.ownsStore = b.ownsStore;
        this.engine = new LeaseEngine(
                b.store, b.ticker, b.metrics, b.callTimeout, b.maxLocalHandOffs, b.maxTurn, b.ledgerId, b.nodeName);
    }

    /** Leases over {@code store} with default options; closing the result closes the store too. */
    public static Leases of(LeaseStore store) {
        return builder(store).build();
    }

    public static Builder builder(LeaseStore store) {
        return new Builder(store);
    }

    /** The options used where a call does not pass its own. */
    public LeaseOptions defaults() {
        return defaults;
    }

    /** {@link #tryAcquire(String, LeaseOptions)} with the default options. */
    public Optional<Lease> tryAcquire(String key) {
        return tryAcquire(key, defaults);
    }

    /**
     * One attempt: empty if held elsewhere, or if the calling thread is interrupted. An interrupted thread sends
     * nothing, and its flag stays set.
     *
     * @throws LeaseOutcomeUnknownException if the store failed, did not answer within the call timeout, or the thread
     *                                      was interrupted while waiting for the answer. No lease is held then, and a
     *                                      release-if-mine for {@link LeaseOutcomeUnknownException#owner()} is already
     *                                      scheduled. An interrupt flag stays set.
     * @throws IllegalArgumentException     if {@code key} is not a valid key
     */
    public Optional<Lease> tryAcquire(String key, LeaseOptions options) {
        return engine.tryAcquire(LeaseKeys.validate(key), Objects.requireNonNull(options, "options"));
    }

    /**
     * Waits up to {@code wait} for a lease on {@code key}. {@link Duration#ZERO} makes one attempt, exactly like
     * {@link #tryAcquire(String, LeaseOptions)}.
     *
     * <p>Empty on timeout, or when the calling thread is interrupted: from then on nothing more is sent to the store,
     * and the interrupt flag stays set. A lease that another thread's release hands over before the waiting thread
     * notices the interrupt is returned, with the flag set.
     *
     * @throws LeaseOutcomeUnknownException if an attempt failed, went unanswered within the call timeout, or the thread
     *                                      was interrupted while waiting for its answer. No lease is held then, and a
     *                                      release-if-mine for {@link LeaseOutcomeUnknownException#owner()} is already
     *                                      scheduled. An interrupt flag stays set.
     * @throws IllegalArgumentException     if {@code key} is not a valid key or {@code wait} is negative
     */
    public Optional<Lease> acquire(String key, Duration wait, LeaseOptions options) {
        return engine.acquire(LeaseKeys.validate(key), checkWait(wait), Objects.requireNonNull(options, "options"));
    }

    /**
     * {@link #acquire(String, Duration, LeaseOptions)} with the default options and a TTL of {@code ttl}: waits up to
     * {@code wait} for a lease that the watchdog renews while it is held. Same results and exceptions. Use it in
     * try-with-resources.
     */
    public Optional<Lease> acquire(String key, Duration wait, Duration ttl) {
        return acquire(key, wait, defaults.withTtl(Objects.requireNonNull(ttl, "ttl")));
    }

    /**
     * Leases on all {@code keys} or none. They are taken in sorted order within {@code wait}. On a timeout or a fault,
     * every lease already taken is released, in reverse order.
     */
    public Optional<LeaseGroup> acquireAll(Collection<String> keys, Duration wait, LeaseOptions options) {
        Objects.requireNonNull(keys, "keys");
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("keys must not be empty");
        }
        TreeSet<String> sorted = new TreeSet<>();
        keys.forEach(k -> sorted.add(LeaseKeys.validate(k)));
        long deadline = ticker.nanoTime() + checkWait(wait).toNanos();
        List<Lease> taken = new ArrayList<>(sorted.size());
        try {
            for (String key : sorted) {
                Duration left = Duration.ofNanos(Math.max(0, deadline - ticker.nanoTime()));
                Optional<Lease> lease = engine.acquire(key, left, options);
                if (lease.isEmpty()) {
                    releaseReversed(taken);
                    return Optional.empty();
                }
                taken.add(lease.get());
            }
        } catch (RuntimeException e) {
            releaseReversed(taken);
            throw e;
        }
        List<Lease> all = List.copyOf(taken);
        LeaseGroup group = () -> all;
        return Optional.of(group);
    }

    private static void releaseReversed(List<Lease> taken) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            taken.get(i).release();
        }
    }

    /** {@link #runLocked(String, LockPolicy, LeaseOptions, Function)} with the default options. */
    public <T> Optional<T> runLocked(String key, LockPolicy policy, Function<Lease, T> work) {
        return runLocked(key, policy, defaults, work);
    }

    /**
     * Runs {@code work} under a lease on {@code key}, releasing it in {@code finally}. Empty when the lock was
     * not obtained under {@code policy}; the work's result otherwise (an empty Optional too if it returned
     * null). If the lease was lost while the work ran, throws {@link LeaseLostException} after the work:
     * its effects were not protected and must be checked by the caller.
     */
    public <T> Optional<T> runLocked(String key, LockPolicy policy, LeaseOptions options, Function<Lease, T> work) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(work, "work");
        Optional<Lease> held = acquire(key, policy.maxWait(), options);
        if (held.isEmpty()) {
            return Optional.empty();
        }
        Lease lease = held.get();
        T result;
        try {
            result = work.apply(lease);
        } finally {
            ReleaseResult r = lease.release();
            if (r == ReleaseResult.LOST) {
                throw new LeaseLostException(lease.key(), lease.owner(), "lost while the work ran");
            }
        }
        return Optional.ofNullable(result);
    }

    private static Duration checkWait(Duration wait) {
        Objects.requireNonNull(wait, "wait");
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait must not be negative (got " + wait + ")");
        }
        return wait;
    }

    /**
     * {@link #acquire(String, Duration, LeaseOptions)} for the filter in front of a coordinated run of {@code fireKey}
     * ({@link LeaseEngine#acquireFire}): the store may answer that the fire is done.
     */
    FilterAnswer acquireFire(String key, @Nullable String fireKey, Duration wait, LeaseOptions options) {
        return engine.acquireFire(LeaseKeys.validate(key), fireKey, checkWait(wait), options);
    }

    /**
     * Releases a coordinated run's filter {@code lease} after the database recorded {@code fireKey} COMPLETED, leaving
     * the store a marker of it ({@link LeaseStore#releaseCompleted}); a lease of another engine is just released.
     */
    static ReleaseResult releaseCompleted(Lease lease, String fireKey) {
        return lease instanceof DefaultLease d ? d.releaseCompleted(fireKey) : lease.release();
    }

    /**
     * Releases a coordinated run's filter, if it has one: with a marker of {@code fireKey} when the database recorded the
     * fire COMPLETED ({@link #releaseCompleted}), else as a plain release.
     */
    static void releaseFilter(@Nullable Lease filter, String fireKey, boolean fireCompleted) {
        if (filter == null) {
            return;
        }
        if (fireCompleted) {
            releaseCompleted(filter, fireKey);
        } else {
            filter.release();
        }
    }

    /** See {@link LeaseEngine#newOwner()}: for the job coordinator's claim-and-start. */
    String newOwner() {
        return engine.newOwner();
    }

    /** Now on this engine's clock: what {@link #adopt}'s {@code sentAt} is measured with. */
    long nanoTime() {
        return ticker.nanoTime();
    }

    /** See {@link LeaseEngine#adopt}. */
    Lease adopt(String key, String owner, LeaseOptions options, long token, long sentAt) {
        return engine.adopt(key, owner, options, token, sentAt);
    }

    /** See {@link LeaseEngine#releasedInStore}. */
    boolean releasedInStore(Lease lease) {
        return lease instanceof DefaultLease d && engine.releasedInStore(d);
    }

    /** Releases {@code owner}'s lease on {@code key} in the background after a call whose outcome is unknown. */
    void cleanUp(String key, String owner, Duration ttl) {
        engine.cleanUp(key, owner, ttl);
    }

    /**
     * Deletes {@code key}'s lease in the store whoever holds it ({@link LeaseStore#evict}); true if there was one.
     *
     * @throws LeaseStoreUnavailableException if the store failed or did not answer within the call timeout
     */
    boolean evict(String key) {
        String k = LeaseKeys.validate(key);
        return Boolean.TRUE.equals(Futures.await(LeaseEngine.send(() -> store.evict(k)), callTimeout, k));
    }

    /** Whether the store answers now ({@link LeaseStore#probe}): empty if it does, else the problem in one line. */
    Optional<String> problem() {
        try {
            return Futures.await(LeaseEngine.send(store::probe), callTimeout, "probe");
        } catch (LeaseStoreUnavailableException e) {
            return Optional.of(describe(e));
        }
    }

    /** {@link LeaseStore#describe}: a failure of this store in one line for operators. */
    String describe(Throwable failure) {
        try {
            return store.describe(failure);
        } catch (RuntimeException e) {
            return String.valueOf(failure);
        }
    }

    /** Leases currently held through this instance and watched by its watchdog. */
    public int heldLeases() {
        return engine.watchedLeases();
    }

    /** Releases every lease still held, stops the watchdog, and closes the store if this instance owns it. */
    @Override
    public void close() {
        engine.close();
        if (ownsStore) {
            store.close();
        }
    }

    /** Configuration of a {@link Leases}. Not thread-safe; build once. */
    public static final class Builder {
        private final LeaseStore store;
        private LeaseOptions defaults = LeaseOptions.ofDefaults();
        private Ticker ticker = Ticker.system();
        private LeaseMetrics metrics = LeaseMetrics.none();
        private Duration callTimeout = Duration.ofSeconds(5);
        private int maxLocalHandOffs = 64;
        private Duration maxTurn = Duration.ofMillis(100);
        private boolean ownsStore = true;
        private String ledgerId = "";
        private @Nullable String nodeName;

        private Builder(LeaseStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** Options for calls that pass none (default {@link LeaseOptions#ofDefaults()}). */
        public Builder defaults(LeaseOptions options) {
            this.defaults = Objects.requireNonNull(options, "options");
            return this;
        }

        /** The monotonic clock for deadlines (default the system's). */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** Where to report metrics (default none; see {@code MicrometerLeaseMetrics}). */
        public Builder metrics(LeaseMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * Hard upper bound on waiting for any single store call (default 5 s). The store's own request timeout
         * is normally much shorter; this only guards against a store that never answers.
         */
        public Builder callTimeout(Duration timeout) {
            this.callTimeout = checkCallTimeout(timeout);
            return this;
        }

        static Duration checkCallTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("callTimeout must be positive (got " + timeout + ")");
            }
            return timeout;
        }

        /**
         * How many times in a row a released lease may be handed straight to a waiter in this process before it
         * is released normally so waiters in other processes get a turn (default 64; 0 = never hand off). The turn
         * also ends after {@link #maxTurn}, whichever comes first; while nobody waits elsewhere it goes on.
         */
        public Builder maxLocalHandOffs(int max) {
            this.maxLocalHandOffs = checkMaxLocalHandOffs(max);
            return this;
        }

        static int checkMaxLocalHandOffs(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("maxLocalHandOffs must be >= 0 (got " + max + ")");
            }
            return max;
        }

        /**
         * How long this process may keep handing a key from one of its threads to the next while other processes wait
         * for it (default 100 ms). The hand-off after that asks the store whether anyone waits elsewhere; if so, the
         * next release passes the key on. With short holds a turn is a run of hand-offs worth one pass between
         * processes (about a millisecond or two); with long holds it bounds how long the other processes wait. Zero
         * ends a turn at every hand-off that finds others waiting.
         */
        public Builder maxTurn(Duration max) {
            this.maxTurn = checkMaxTurn(max);
            return this;
        }

        static Duration checkMaxTurn(Duration max) {
            if (max == null || max.isNegative()) {
                throw new IllegalArgumentException("maxTurn must be zero or positive (got " + max + ")");
            }
            return max;
        }

        /**
         * The ledger whose completed-fire markers these leases write and read ({@link RunLedger#ledgerId()}; default
         * none): a marker names {@code <ledgerId>/<fireKey>}. {@link Tenure} sets its ledger's.
         *
         * @throws IllegalArgumentException if the id contains {@code /}
         */
        Builder ledgerId(String id) {
            Objects.requireNonNull(id, "ledgerId");
            if (id.indexOf('/') >= 0) {
                throw new IllegalArgumentException("ledgerId must not contain '/' (got '" + id + "')");
            }
            this.ledgerId = id;
            return this;
        }

        /** Whether {@link Leases#close()} closes the store (default true). */
        public Builder ownsStore(boolean owns) {
            this.ownsStore = owns;
            return this;
        }

        /**
         * The node's name ({@link Tenure#nodeName()}): log lines name a lease's owner by it plus the owner id's first
         * four characters ({@code web-1/invoicing/22418#b6e8}), as the console and the ledger's reasons do. Default:
         * the owner id.
         */
        Builder nodeName(@Nullable String name) {
            this.nodeName = name;
            return this;
        }

        public Leases build() {
            return new Leases(this);
        }
    }
}
