package dev.tenure;

import dev.tenure.metrics.LeaseMetrics;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

// Over 400 lines: waiting and release share each key's local FIFO under one lock and must agree on it; hand-offs,
// renewal, TTL changes and unknown outcomes are already classes of their own.
/**
 * The lease state machine over a {@link LeaseStore}: single attempts, waiting with a local FIFO per key, and release.
 * Waiting and release share the per-key queue and must agree on it. The other concerns have classes of their own:
 * hand-off to a local waiter and the turns that bound it ({@link HandOffs}), renewal ({@link Watchdog}), TTL changes
 * ({@link TtlChange}) and the clean-up after calls whose outcome is unknown ({@link UnknownOutcomes}).
 */
final class LeaseEngine implements AutoCloseable {

    static final Logger LOG = LoggerFactory.getLogger("dev.tenure");
    private static final long YIELD_DELAY_MICROS = 2_000;
    private static final long LOCAL_HOLDER_MAX_PARK_NANOS = 1_000_000_000L;

    private final LeaseStore store;
    private final Ticker ticker;
    private final LeaseMetrics metrics;
    private final Duration callTimeout;
    /** How long after giving up on a store call it may still take effect there (see {@link LeaseStore#longestCall()}). */
    private final long settleNanos;

    private final Watchdog watchdog;
    private final HandOffs handOffs;
    private final TtlChange ttlChange;
    private final ScheduledExecutorService cleaner;
    private final UnknownOutcomes unknownOutcomes;
    private final ConcurrentMap<String, KeyWaiters> waiters = new ConcurrentHashMap<>();
    private final Owners owners = new Owners();
    /** The ledger whose completed-fire markers this engine writes and reads ({@link #markerKey}). */
    private final String ledgerId;
    /** This node's name, for log lines ({@link #shown}); null: the owner id. */
    private final @Nullable String nodeName;

    public LeaseEngine(
            LeaseStore store,
            Ticker ticker,
            LeaseMetrics metrics,
            Duration callTimeout,
            int maxLocalHandOffs,
            Duration maxTurn,
            String ledgerId,
            @Nullable String nodeName) {
        this.store = store;
        this.ledgerId = ledgerId;
        this.nodeName = nodeName;
        this.ticker = ticker;
        this.metrics = metrics;
        this.callTimeout = callTimeout;
        Duration longest = store.longestCall();
        this.settleNanos =
                (longest == null || longest.isNegative() || longest.isZero() ? callTimeout : longest).toNanos();
        this.watchdog = new Watchdog(store, ticker, metrics, settleNanos, nodeName);
        this.handOffs = new HandOffs(this, store, metrics, watchdog, owners, callTimeout, maxLocalHandOffs, maxTurn);
        this.ttlChange = new TtlChange(this, store, metrics, callTimeout, settleNanos);
        ScheduledThreadPoolExecutor c = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tenure-cleanup");
            t.setDaemon(true);
            return t;
        });
        // close() does not wait for clean-ups that are waiting for their turn: what they would release ends by its TTL
        c.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        c.setRemoveOnCancelPolicy(true);
        this.cleaner = c;
        this.unknownOutcomes = new UnknownOutcomes(store, ticker, settleNanos, c);
    }

    long now() {
        return ticker.nanoTime();
    }

    /** Leases this engine is watching (held and not yet released or lost). */
    public int watchedLeases() {
        return watchdog.size();
    }

    /** Lets the watchdog look at its leases now. */
    public void nudgeWatchdog() {
        watchdog.wakeUp();
    }

    /**
     * One attempt; empty if held elsewhere, or if the thread is interrupted (nothing is sent then; the flag stays set).
     *
     * @throws LeaseOutcomeUnknownException if the store failed or did not answer (a clean-up is scheduled)
     */
    public Optional<Lease> tryAcquire(String key, LeaseOptions options) {
        return attempt(key, owners.next(), options, null, null).granted();
    }

    /** What an attempt, or a wait made of attempts, came to. */
    private sealed interface Attempt {
        Attempt ALREADY_COMPLETED = new AlreadyDone();
        Attempt NOT_SENT = new NotSent();

        /** The lease, if one was granted. */
        default Optional<Lease> granted() {
            return this instanceof Granted g ? Optional.of(g.lease()) : Optional.empty();
        }

        /** Granted: the lease is this process's, its watchdog registered. */
        record Granted(DefaultLease lease) implements Attempt {}

        /** Held by another owner for about {@code held.remaining()}. */
        record HeldElsewhere(AcquireResult.Held held) implements Attempt {}

        /** Not granted: the store says the fire is done ({@link LeaseStore#tryAcquireFire}). */
        record AlreadyDone() implements Attempt {}

        /** Nothing granted and nothing held known: the thread was interrupted, or the wait ran out. */
        record NotSent() implements Attempt {}
    }

    /**
     * The filter of a coordinated run of fire {@code fireKey}: {@link #acquire}, where the store may also answer that
     * the fire is done ({@link LeaseStore#tryAcquireFire}, with this ledger's {@link #markerKey}); that ends a wait at
     * once.
     */
    FilterAnswer acquireFire(String key, @Nullable String fireKey, Duration wait, LeaseOptions o) {
        String marker = fireKey == null ? null : markerKey(fireKey);
        Attempt r = wait.isZero() ? attempt(key, owners.next(), o, null, marker) : await(key, wait, o, marker);
        if (r instanceof Attempt.Granted g) {
            return new FilterAnswer(g.lease(), false);
        }
        return r instanceof Attempt.AlreadyDone ? FilterAnswer.DONE : FilterAnswer.NONE;
    }

    /**
     * One store call. {@link Attempt.NotSent} if the thread is interrupted: an interrupted thread would not wait for the
     * answer, so it sends nothing. {@link Attempt.AlreadyDone} only with a {@code fireKey}.
     */
    private Attempt attempt(
            String key, String owner, LeaseOptions o, @Nullable String queuedAs, @Nullable String fireKey) {
        if (Thread.currentThread().isInterrupted()) {
            metrics.acquire(LeaseMetrics.AcquireOutcome.TIMEOUT, 0);
            return Attempt.NOT_SENT;
        }
        long sentAt = now();
        AcquireResult r;
        CompletableFuture<AcquireResult> call = send(() -> fireKey != null
                ? store.tryAcquireFire(key, owner, o.ttl(), o.fencingToken(), fireKey, queuedAs)
                : queuedAs == null
                        ? store.tryAcquire(key, owner, o.ttl(), o.fencingToken())
                        : store.tryAcquire(key, owner, o.ttl(), o.fencingToken(), queuedAs));
        try {
            r = Futures.await(call, callTimeout, key);
        } catch (LeaseStoreUnavailableException e) {
            metrics.acquire(LeaseMetrics.AcquireOutcome.ERROR, now() - sentAt);
            cleanUp(key, owner, o.ttl());
            // the caller gave up (interrupted) while the call ran on: a grant that lands later is given back as it
            // lands
            call.thenAccept(late -> {
                if (late instanceof AcquireResult.Acquired) {
                    cleanUp(key, owner, o.ttl());
                }
            });
            throw new LeaseOutcomeUnknownException(key, owner, e);
        }
        if (r instanceof AcquireResult.Acquired a) {
            metrics.acquire(LeaseMetrics.AcquireOutcome.ACQUIRED, now() - sentAt);
            DefaultLease lease =
                    new DefaultLease(this, key, owner, o, a.fencingToken(), sentAt, Thread.currentThread());
            watchdog.register(lease);
            return new Attempt.Granted(lease);
        }
        if (r instanceof AcquireResult.AlreadyDone) {
            metrics.acquire(LeaseMetrics.AcquireOutcome.DONE, now() - sentAt);
            return Attempt.ALREADY_COMPLETED;
        }
        metrics.acquire(LeaseMetrics.AcquireOutcome.HELD, now() - sentAt);
        return new Attempt.HeldElsewhere((AcquireResult.Held) r);
    }

    /** A store call's future; a store that throws instead of failing its future gets a failed future. */
    static <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Waits up to {@code wait} for the key (zero: {@link #tryAcquire}). Only the head of this process's queue asks the
     * store; it sleeps with jittered exponential back-off capped by the holder's remaining time, and is woken early by
     * a release (local, or the store's notification). Empty on timeout, or once the thread is interrupted (nothing is
     * sent after that; the flag stays set).
     *
     * @throws LeaseOutcomeUnknownException if an attempt failed or went unanswered (a clean-up is scheduled)
     */
    public Optional<Lease> acquire(String key, Duration wait, LeaseOptions o) {
        if (wait.isZero()) {
            return tryAcquire(key, o);
        }
        return await(key, wait, o, null).granted();
    }

    /**
     * {@link Attempt.Granted}, {@link Attempt.AlreadyDone} (only with a {@code fireKey}), or {@link Attempt.NotSent}
     * at the deadline.
     */
    private Attempt await(String key, Duration wait, LeaseOptions o, @Nullable String fireKey) {
        long deadline = now() + wait.toNanos();
        Waiter w = new Waiter(owners.next(), o);
        KeyWaiters q = join(key, w);
        try {
            return awaitTurn(key, q, w, deadline, new Backoff(), fireKey);
        } finally {
            leave(key, q, w);
        }
    }

    private Attempt awaitTurn(
            String key, KeyWaiters q, Waiter w, long deadline, Backoff backoff, @Nullable String fireKey) {
        while (true) {
            int st = w.state.get();
            if (st == Waiter.GRANTED) {
                return new Attempt.Granted(Objects.requireNonNull(w.granted));
            }
            if (st == Waiter.GRANTING) {
                w.parkThroughInterrupt(callTimeout.toNanos()); // the hand-off's answer decides, interrupted or not
                continue;
            }
            long left = deadline - now();
            if (left <= 0 || Thread.currentThread().isInterrupted()) {
                if (w.cas(Waiter.WAITING, Waiter.DONE)) {
                    metrics.acquire(LeaseMetrics.AcquireOutcome.TIMEOUT, 0);
                    return Attempt.NOT_SENT;
                }
                continue;
            }
            if (!q.isHead(w)) {
                w.park(left);
                continue;
            }
            if (q.heldLocally()) {
                // The holder is in this process: its release hands the lease to us or wakes us. No store call.
                w.park(Math.min(LOCAL_HOLDER_MAX_PARK_NANOS, left));
                continue;
            }
            if (!w.cas(Waiter.WAITING, Waiter.TRYING)) {
                continue;
            }
            w.clearSignal();
            Attempt r;
            try {
                r = attempt(key, w.owner(), w.options, owners.id(), fireKey);
            } catch (RuntimeException e) {
                w.state.set(Waiter.DONE);
                throw e;
            }
            if (!(r instanceof Attempt.HeldElsewhere elsewhere)) {
                w.state.set(Waiter.DONE); // granted, the fire done, or interrupted just before sending
                if (r instanceof Attempt.Granted g) {
                    q.localHolder = g.lease();
                }
                return r;
            }
            w.state.set(Waiter.WAITING);
            metrics.retry();
            AcquireResult.Held held = elsewhere.held();
            long holderLeft = held.remaining().toNanos() + 1_000_000L;
            boolean queued = store.queuesWaiters();
            if (queued) {
                q.queuedInStore = true;
            }
            // A holder in this process wakes us itself (hand-off or release), and a store that queued us tells us when
            // our turn comes (or the key is freed), once its release notifications reach us: no need to poll more than
            // about once a second then. Until the subscription is confirmed, poll with back-off.
            long pause = owners.isMine(held.owner()) || (queued && store.releasesReachUs(key))
                    ? Math.min(LOCAL_HOLDER_MAX_PARK_NANOS, holderLeft)
                    : Math.min(backoff.nextNanos(), holderLeft);
            w.park(Math.min(pause, Math.max(0, deadline - now())));
        }
    }

    private KeyWaiters join(String key, Waiter w) {
        return waiters.compute(key, (k, q) -> {
            if (q == null) {
                q = new KeyWaiters();
                KeyWaiters created = q;
                q.subscription = store.subscribeReleases(k, owners.id(), created::wakeHead);
            }
            q.add(w);
            return q;
        });
    }

    private void leave(String key, KeyWaiters q, Waiter w) {
        waiters.computeIfPresent(key, (k, current) -> {
            if (current.remove(w) && current == q) {
                closeQuietly(current.subscription);
                if (current.queuedInStore) {
                    store.leaveQueue(k, owners.id());
                }
                return null;
            }
            return current;
        });
    }

    /** {@link Lease#extend}: see {@link TtlChange}. */
    ExtendResult extend(DefaultLease lease, Duration newTtl) {
        return ttlChange.extend(lease, newTtl);
    }

    /** Releases {@code lease}, handing it straight to a parked local waiter when there is one. */
    ReleaseResult release(DefaultLease lease) {
        if (!lease.startRelease()) {
            return lease.state() == LeaseState.LOST ? ReleaseResult.LOST : ReleaseResult.ALREADY_RELEASED;
        }
        KeyWaiters q = endHold(lease);
        boolean yield = q != null && handOffs.turnUsedUp(lease);
        ReleaseResult r;
        if (q != null && !yield && lease.isValid()) {
            Waiter w = q.claimParkedHead();
            if (w != null) {
                return handOffs.handOff(lease, q, w);
            }
        }
        if (yield && q != null && q.queuedInStore && !q.isEmpty()) {
            // Others wait in the store's queue: pass the key to the next process's turn and queue up behind them. Our
            // waiters are woken when our turn comes (or the key is freed).
            StoreRelease turn = releaseInStore(lease, owners.id());
            if (turn.passed()) {
                return turn.result();
            }
            r = turn.result();
        } else {
            r = releaseInStore(lease, null).result();
        }
        if (q != null) {
            if (yield) {
                // Waiters elsewhere get a head start: the local head is woken a moment after the release notification.
                cleaner.schedule(q::wakeHead, YIELD_DELAY_MICROS, TimeUnit.MICROSECONDS);
            } else {
                q.wakeHead();
            }
        }
        return r;
    }

    /**
     * Releases the filter lease of a run whose fire {@code fireKey} the database recorded COMPLETED: the store keeps a
     * marker of it for the lease's TTL ({@link LeaseStore#releaseCompleted}). No hand-off to a local waiter: the waiters
     * are woken and ask the store, which tells those of the same fire that it is done.
     */
    ReleaseResult releaseCompleted(DefaultLease lease, String fireKey) {
        if (!lease.startRelease()) {
            return lease.state() == LeaseState.LOST ? ReleaseResult.LOST : ReleaseResult.ALREADY_RELEASED;
        }
        KeyWaiters q = endHold(lease);
        ReleaseResult r = releaseWith(
                        lease,
                        () -> store.releaseCompleted(
                                        lease.key(),
                                        lease.owner(),
                                        markerKey(fireKey),
                                        lease.options().ttl())
                                .thenApply(ok -> ok ? LeaseStore.TurnRelease.FREED : LeaseStore.TurnRelease.NOT_OURS))
                .result();
        if (q != null) {
            q.wakeHead();
        }
        return r;
    }

    /**
     * The fire key a completed-fire marker names in the store: {@code <ledgerId>/<fireKey>}. A marker that another
     * ledger left on a key of a shared Valkey names another fire, so it is no marker of this one: the store takes it as a
     * free key, and this ledger decides.
     */
    private String markerKey(String fireKey) {
        return ledgerId + "/" + fireKey;
    }

    /** The first steps of every release: the lease leaves the watchdog and its key's local holder. */
    private @Nullable KeyWaiters endHold(DefaultLease lease) {
        awaitHandOffSettled(lease);
        watchdog.unregister(lease);
        metrics.held(
                Duration.ofNanos(now() - lease.acquiredAt()), lease.options().ttl());
        KeyWaiters q = waiters.get(lease.key());
        if (q != null && q.localHolder == lease) {
            q.localHolder = null;
        }
        return q;
    }

    /**
     * {@link #release} on the clean-up thread, which this engine owns and {@link #close} shuts down (after releasing
     * every lease it still holds): for a lease-lost listener on the watchdog thread, which must not wait for the store.
     */
    void releaseInBackground(DefaultLease lease) {
        if (lease.releasing() || cleaner.isShutdown()) {
            return;
        }
        try {
            cleaner.execute(lease::release);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing: close() releases every lease still held
        }
    }

    /** A release's result, and whether the store passed the key to another process's turn. */
    private record StoreRelease(ReleaseResult result, boolean passed) {}

    /** Releases in the store; with {@code requeueAs}, yields the turn to the next queued process (see {@link LeaseStore#releaseTurn}). */
    private StoreRelease releaseInStore(DefaultLease lease, @Nullable String requeueAs) {
        return releaseWith(
                lease,
                () -> requeueAs == null
                        ? store.release(lease.key(), lease.owner())
                                .thenApply(ok -> ok ? LeaseStore.TurnRelease.FREED : LeaseStore.TurnRelease.NOT_OURS)
                        : store.releaseTurn(lease.key(), lease.owner(), requeueAs));
    }

    /** A lease handed over early is released only after the store has the transfer, so store operations stay in order. */
    void awaitHandOffSettled(DefaultLease lease) {
        handOffs.awaitSettled(lease);
    }

    private StoreRelease releaseWith(DefaultLease lease, Supplier<CompletableFuture<LeaseStore.TurnRelease>> call) {
        boolean wasLost = lease.state() == LeaseState.LOST;
        LeaseStore.TurnRelease done;
        try {
            done = Futures.await(call.get(), callTimeout, lease.key());
        } catch (LeaseStoreUnavailableException e) {
            metrics.releaseFailure();
            cleanUp(lease.key(), lease.owner(), lease.options().ttl());
            lease.markReleased();
            LOG.warn(
                    "release of lease '{}' not confirmed ({}); it expires by its TTL, retrying in the background",
                    lease.key(),
                    e.getMessage());
            return new StoreRelease(wasLost ? ReleaseResult.LOST : ReleaseResult.UNCONFIRMED, false);
        }
        if (done != LeaseStore.TurnRelease.NOT_OURS && lease.markReleased()) {
            return new StoreRelease(ReleaseResult.RELEASED, done == LeaseStore.TurnRelease.PASSED);
        }
        if (lease.markLost("the store no longer held this owner's lease at release")) {
            metrics.lost();
        }
        return new StoreRelease(ReleaseResult.LOST, false);
    }

    void loseNow(DefaultLease lease, String reason) {
        watchdog.unregister(lease);
        if (lease.markLost(reason)) {
            metrics.lost();
            LOG.warn("lease '{}' of {} LOST: {}", lease.key(), shown(nodeName, lease.owner()), reason);
        }
    }

    /**
     * How a log line names the owner of a lease: this node's name and the owner id's first four characters
     * ({@code web-1/invoicing/22418#b6e8}), as the ledger's reasons and the console do; the owner id without a node name.
     */
    static String shown(@Nullable String nodeName, String owner) {
        return nodeName == null ? "owner " + owner : nodeName + "#" + owner.substring(0, Math.min(4, owner.length()));
    }

    /** See {@link UnknownOutcomes#cleanUp}. */
    void cleanUp(String key, String owner, Duration ttl) {
        unknownOutcomes.cleanUp(key, owner, ttl);
    }

    private static void closeQuietly(@Nullable AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.debug("closing a release subscription failed", e);
        }
    }

    /** A fresh owner id of this engine, for a lease a caller claims in the store itself (then {@link #adopt}s). */
    String newOwner() {
        return owners.next();
    }

    /**
     * Takes over a lease the caller claimed in the store itself under {@link #newOwner()} (a store operation that
     * also does other work): from now on it is a lease like any other, renewed by the watchdog, valid until
     * {@code sentAt + ttl - safety margin}.
     */
    DefaultLease adopt(String key, String owner, LeaseOptions o, long token, long sentAt) {
        metrics.acquire(LeaseMetrics.AcquireOutcome.ACQUIRED, now() - sentAt);
        DefaultLease lease =
                new DefaultLease(this, key, owner, o, OptionalLong.of(token), sentAt, Thread.currentThread());
        watchdog.register(lease);
        return lease;
    }

    /**
     * Ends {@code lease} locally after the caller released it in the store itself (in a statement that also did other
     * work): no store call; a local waiter is woken to try. False if the lease was no longer ACTIVE here.
     */
    boolean releasedInStore(DefaultLease lease) {
        if (!lease.startRelease()) {
            return false;
        }
        KeyWaiters q = endHold(lease);
        boolean released = lease.markReleased();
        if (q != null) {
            q.wakeHead();
        }
        return released;
    }

    @Override
    public void close() {
        for (DefaultLease lease : watchdog.snapshot()) {
            lease.release();
        }
        watchdog.close();
        cleaner.shutdown();
        try {
            cleaner.awaitTermination(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
