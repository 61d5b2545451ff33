package dev.tenure;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The lease handle. State moves only ACTIVE → RELEASED or ACTIVE → LOST (one CAS each). The validity
 * deadline ({@link Validity}) moves only while ACTIVE, and only forward, except by a TTL change ({@link #extend}) or
 * a failed call that may still shorten the lease in the store. At most one store call that moves the lease's expiry
 * (a renewal, a TTL change, the confirmation of an early hand-off) is in flight at a time ({@link #startCall}), so the
 * store applies them in the order the deadline assumes. Renewal bookkeeping fields are touched by the watchdog thread
 * and by store callbacks, hence volatile.
 */
final class DefaultLease implements Lease {

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final LeaseEngine engine;
    private final String key;
    private final String owner;
    /** The options the lease is held to; a TTL change replaces them. */
    private volatile LeaseOptions options;

    private final OptionalLong token;
    private final Thread holder;
    private final long acquiredAt;
    private final AtomicReference<LeaseState> state = new AtomicReference<>(LeaseState.ACTIVE);
    private final AtomicBoolean releaseStarted = new AtomicBoolean();
    private final List<Once> listeners = new CopyOnWriteArrayList<>();
    private final Validity validity;
    private volatile @Nullable String lostReason;
    /** The store call in flight that moves the lease's expiry (completes when it has ended), or null. */
    private final AtomicReference<CompletableFuture<Void>> call = new AtomicReference<>();

    /** Completes when the store confirmed (or refused) the hand-off that created this lease; done otherwise. */
    final CompletableFuture<Void> handOffSettled;

    // watchdog bookkeeping
    volatile boolean refused;

    /**
     * This process's turn on the key, which passes from lease to lease along a run of local hand-offs: how many hand-offs
     * it has made, and when it began (the engine's clock). A lease taken from the store starts a turn. Set by the
     * thread that hands the lease over ({@link #continueTurn}, {@link #startTurn}), once the store has answered: before
     * the lease is granted or, for an early hand-off, before {@link #handOffSettled} completes, which its release waits
     * for.
     */
    volatile int turnHandOffs;

    volatile long turnStartedAt;

    DefaultLease(
            LeaseEngine engine,
            String key,
            String owner,
            LeaseOptions options,
            OptionalLong token,
            long sentAt,
            Thread holder) {
        this(
                engine,
                key,
                owner,
                options,
                token,
                sentAt,
                holder,
                sentAt + options.ttl().toNanos() - options.safetyMargin().toNanos());
    }

    /** A lease whose validity is given, not derived from a send time (an early hand-off inherits its predecessor's). */
    DefaultLease(
            LeaseEngine engine,
            String key,
            String owner,
            LeaseOptions options,
            OptionalLong token,
            long sentAt,
            Thread holder,
            long validUntil) {
        this.engine = engine;
        this.key = key;
        this.owner = owner;
        this.options = options;
        this.token = token;
        this.holder = holder;
        this.acquiredAt = sentAt;
        this.turnStartedAt = sentAt;
        this.validity = new Validity(validUntil, options, sentAt);
        this.handOffSettled = validUntil == deadlineFrom(sentAt) ? DONE : new CompletableFuture<>();
    }

    /** Goes on with {@code from}'s turn, which has now made {@code handOffs} hand-offs. */
    void continueTurn(DefaultLease from, int handOffs) {
        turnStartedAt = from.turnStartedAt;
        turnHandOffs = handOffs;
    }

    /** Starts a new turn at {@code at} (nobody waits elsewhere). */
    void startTurn(long at) {
        turnStartedAt = at;
        turnHandOffs = 0;
    }

    long deadlineFrom(long sentAt) {
        return sentAt + options.ttl().toNanos() - options.safetyMargin().toNanos();
    }

    /** Takes the one slot for a store call that moves the lease's expiry; false if such a call is in flight. */
    boolean startCall() {
        return call.compareAndSet(null, new CompletableFuture<>());
    }

    boolean callInFlight() {
        return call.get() != null;
    }

    /** Completes when the call in flight has ended (at once if none is). */
    CompletableFuture<Void> callEnded() {
        CompletableFuture<Void> c = call.get();
        return c == null ? DONE : c;
    }

    /**
     * Takes the call slot, waiting for the call in flight (if any) to end, until {@code deadline} on {@code clock}.
     *
     * @return false if a call still held the slot at the deadline
     */
    boolean takeCall(Ticker clock, long deadline) throws InterruptedException {
        while (!startCall()) {
            long left = deadline - clock.nanoTime();
            if (left <= 0) {
                return false;
            }
            try {
                callEnded().get(left, TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                // look again: the loop decides
            }
        }
        return true;
    }

    /** Frees the slot taken by {@link #startCall}. */
    void endCall() {
        CompletableFuture<Void> c = call.getAndSet(null);
        if (c != null) {
            c.complete(null);
        }
    }

    /** After a renewal with {@code term} sent at {@code sentAt} succeeded: validity moves forward, never back. */
    void renewed(long sentAt, LeaseOptions term) {
        if (state.get() == LeaseState.ACTIVE) {
            validity.renewed(sentAt, term);
        }
    }

    /**
     * After a TTL change to {@code term} sent at {@code sentAt} succeeded: validity follows the new TTL, earlier or
     * later, and renewals use it from now on. False (nothing changed) if the lease is no longer ACTIVE.
     */
    boolean ttlChanged(long sentAt, LeaseOptions term) {
        if (state.get() != LeaseState.ACTIVE) {
            return false;
        }
        options = term;
        validity.changed(sentAt, term);
        return true;
    }

    /** After a call with {@code term} sent at {@code sentAt} failed; it may still take effect until {@code settledAt}. */
    void callFailed(long sentAt, LeaseOptions term, long settledAt) {
        validity.failed(sentAt, term, settledAt);
    }

    long validUntil() {
        return validity.until();
    }

    long nextRenewAt() {
        return validity.nextRenewAt();
    }

    /** How early a renewal may go out together with others that are due. */
    long renewWindow() {
        return validity.window();
    }

    void renewAt(long at) {
        validity.renewAt(at);
    }

    long acquiredAt() {
        return acquiredAt;
    }

    LeaseOptions options() {
        return options;
    }

    boolean startRelease() {
        return releaseStarted.compareAndSet(false, true);
    }

    boolean releasing() {
        return releaseStarted.get();
    }

    boolean markReleased() {
        return state.compareAndSet(LeaseState.ACTIVE, LeaseState.RELEASED);
    }

    /** Turns ACTIVE into LOST, runs listeners, interrupts the holder if configured. False if not ACTIVE. */
    boolean markLost(String reason) {
        if (!state.compareAndSet(LeaseState.ACTIVE, LeaseState.LOST)) {
            return false;
        }
        lostReason = reason;
        for (Once l : listeners) {
            l.run(this);
        }
        if (options.interruptOnLoss() && !releaseStarted.get()) {
            holder.interrupt();
        }
        return true;
    }

    /** A listener that runs at most once, whichever of markLost and onLost gets to it first. */
    private static final class Once {
        private final Consumer<Lease> listener;
        private final AtomicBoolean ran = new AtomicBoolean();

        Once(Consumer<Lease> listener) {
            this.listener = listener;
        }

        void run(Lease lease) {
            if (ran.compareAndSet(false, true)) {
                try {
                    listener.accept(lease);
                } catch (RuntimeException e) {
                    LeaseEngine.LOG.warn("onLost listener of lease '{}' threw", lease.key(), e);
                }
            }
        }
    }

    /** Why the lease was lost, or null. */
    @Nullable
    String lostReason() {
        return lostReason;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public String owner() {
        return owner;
    }

    @Override
    public LeaseState state() {
        return Objects.requireNonNull(state.get());
    }

    @Override
    public boolean isValid() {
        return state.get() == LeaseState.ACTIVE && engine.now() < validity.until();
    }

    @Override
    public Duration remaining() {
        if (state.get() != LeaseState.ACTIVE) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, validity.until() - engine.now()));
    }

    @Override
    public OptionalLong fencingToken() {
        return token;
    }

    @Override
    public Lease onLost(Consumer<Lease> listener) {
        Once once = new Once(listener);
        listeners.add(once);
        if (state.get() == LeaseState.LOST) {
            once.run(this);
        }
        return this;
    }

    @Override
    public ExtendResult extend(Duration newTtl) {
        return engine.extend(this, newTtl);
    }

    @Override
    public ReleaseResult release() {
        return engine.release(this);
    }

    /** {@link #release()} leaving the store a marker that fire {@code fireKey} is done ({@link LeaseEngine#releaseCompleted}). */
    ReleaseResult releaseCompleted(String fireKey) {
        return engine.releaseCompleted(this, fireKey);
    }

    /** {@link #release()} on the engine's clean-up thread, for callers that must not wait for the store. */
    void releaseInBackground() {
        engine.releaseInBackground(this);
    }

    @Override
    public String toString() {
        return "Lease[" + key + ", owner=" + owner + ", " + state.get()
                + (token.isPresent() ? ", token=" + token.getAsLong() : "") + "]";
    }
}
