package dev.tenure;


import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The lease handle. State moves only ACTIVE → RELEASED or ACTIVE → LOST (one CAS each). The validity
 * deadline only moves forward, and only while ACTIVE. Renewal bookkeeping fields are touched by the
 * watchdog thread and by store callbacks, hence volatile.
 */
final class DefaultLease implements Lease {

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final LeaseEngine engine;
    private final String key;
    private final String owner;
    private final LeaseOptions options;
    private final OptionalLong token;
    private final Thread holder;
    private final long acquiredAt;
    private final AtomicReference<LeaseState> state = new AtomicReference<>(LeaseState.ACTIVE);
    private final AtomicBoolean releaseStarted = new AtomicBoolean();
    private final List<Once> listeners = new CopyOnWriteArrayList<>();
    private volatile long validUntil;
    private volatile String lostReason;

    /** Completes when the store confirmed (or refused) the hand-off that created this lease; done otherwise. */
    final CompletableFuture<Void> handOffSettled;

    // watchdog bookkeeping
    volatile long nextRenewAt;
    volatile boolean renewInFlight;
    volatile boolean refused;

    DefaultLease(LeaseEngine engine, String key, String owner, LeaseOptions options, OptionalLong token, long sentAt,
                 Thread holder) {
        this(engine, key, owner, options, token, sentAt, holder, sentAt + options.ttl().toNanos() - options.safetyMargin().toNanos());
    }

    /** A lease whose validity is given, not derived from a send time (an early hand-off inherits its predecessor's). */
    DefaultLease(LeaseEngine engine, String key, String owner, LeaseOptions options, OptionalLong token, long sentAt,
                 Thread holder, long validUntil) {
        this.engine = engine;
        this.key = key;
        this.owner = owner;
        this.options = options;
        this.token = token;
        this.holder = holder;
        this.acquiredAt = sentAt;
        this.validUntil = validUntil;
        this.handOffSettled = validUntil == deadlineFrom(sentAt) ? DONE : new CompletableFuture<>();
        this.nextRenewAt = sentAt + options.renewEvery().toNanos();
    }

    long deadlineFrom(long sentAt) {
        return sentAt + options.ttl().toNanos() - options.safetyMargin().toNanos();
    }

    /** Pushes validity forward after a successful renewal sent at {@code sentAt}. */
    void extend(long sentAt) {
        long candidate = deadlineFrom(sentAt);
        if (state.get() == LeaseState.ACTIVE && candidate > validUntil) {
            validUntil = candidate;
        }
    }

    long validUntil() {
        return validUntil;
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
        return state.get();
    }

    @Override
    public boolean isValid() {
        return state.get() == LeaseState.ACTIVE && engine.now() < validUntil;
    }

    @Override
    public Duration remaining() {
        if (state.get() != LeaseState.ACTIVE) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, validUntil - engine.now()));
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
    public ReleaseResult release() {
        return engine.release(this);
    }

    @Override
    public String toString() {
        return "Lease[" + key + ", owner=" + owner + ", " + state.get() + (token.isPresent() ? ", token=" + token.getAsLong() : "") + "]";
    }
}
