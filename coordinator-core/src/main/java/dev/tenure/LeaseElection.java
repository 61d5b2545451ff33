package dev.tenure;

import dev.tenure.spi.LeaseKeys;
import dev.tenure.spi.RunLedger;
import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader election, in rounds on the lease engine: wait for the role's Valkey lease (when Valkey is configured and
 * reachable), then for its database lease, which decides (its epoch is the leadership's epoch); lead until that lease is lost or the
 * election stops; release both; again. Waiting (back-off capped by the holder's remaining time, woken early by release
 * notifications), renewal and revocation at the local validity deadline are the engine's ({@link Leases}): this class
 * only strings rounds together. Without Valkey it is the election of the database mode.
 *
 * <p>Valkey only filters (followers wait on Valkey, not on the database): while it is unreachable (the Tenure's
 * fallback breaker, by default two failures in a row open it for 5 s) the database decides alone, and a leader that loses its Valkey lease keeps leading, since
 * the database lease is authoritative in both cases and never lets two terms be live at once.
 *
 * <p>One thread per election runs the rounds and every callback. {@link #stop()} interrupts it only while it waits (for
 * a lease, for a loss, or after a fault), never during a release or a callback. An acquire interrupted in flight is
 * given back by the engine when it lands; a lease obtained after stop() began is released at once.
 */
final class LeaseElection implements LeaderElection {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final long STOP_WAIT_MILLIS = 15_000;

    private final String name;
    private final String participant;
    private final Leases database;
    private final @Nullable Leases valkey;
    private final RunLedger ledger;
    private final LeaseOptions valkeyOptions;
    private final LeaseOptions databaseOptions;
    private final Listener listener;
    private final CircuitBreaker breaker;
    private final Semaphore lost = new Semaphore(0);
    private final Object lifecycle = new Object();
    private @Nullable Thread thread; // guarded by lifecycle
    private boolean waiting; // guarded by lifecycle: stop() may interrupt the thread now
    private volatile boolean stopped;
    private volatile @Nullable Lease held;
    /** True from a failed Valkey call of the election's thread to the next one Valkey answers (that thread only). */
    private boolean valkeyFailing;

    /**
     * @param label   names the participant in its id and the logs; null = {@code pid@host}
     * @param valkey  Valkey leases in front of the database, or null for the database alone
     * @param breaker sends the election to the database alone while Valkey fails (the Tenure's fallback breaker settings)
     * @param options TTL, renewal period and safety margin of both leases (renewal is always on, a fencing token always
     *                taken on the database lease, the election's thread never interrupted on a loss)
     * @throws IllegalArgumentException if {@code name} is not a valid key or {@code label} is blank or too long
     */
    LeaseElection(
            String name,
            @Nullable String label,
            Leases database,
            @Nullable Leases valkey,
            RunLedger ledger,
            LeaseOptions options,
            CircuitBreaker breaker,
            Listener listener) {
        this.name = LeaseKeys.validate(name);
        this.participant = ownerId(label);
        this.database = Objects.requireNonNull(database, "database");
        this.valkey = valkey;
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        LeaseOptions o =
                Objects.requireNonNull(options, "options").withRenewal(true).withInterruptOnLoss(false);
        this.valkeyOptions = o.withFencingToken(false);
        this.databaseOptions = o.withFencingToken(true);
        this.breaker = Objects.requireNonNull(breaker, "breaker");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String owner() {
        return participant;
    }

    @Override
    public void start() {
        synchronized (lifecycle) {
            if (stopped) {
                throw new IllegalStateException("election '" + name + "' (" + participant + ") was stopped and cannot "
                        + "start again: ask Tenure for a new one");
            }
            if (thread == null) {
                thread = new Thread(this::run, "tenure-election-" + name);
                thread.setDaemon(true);
                thread.start();
            }
        }
    }

    @Override
    public void stop() {
        Thread t;
        synchronized (lifecycle) {
            if (stopped) {
                return;
            }
            stopped = true;
            t = thread;
            if (t != null && waiting) {
                t.interrupt();
            }
        }
        if (t == null || t == Thread.currentThread()) {
            return; // never started, or called by a callback: the round resigns when the callback returns
        }
        try {
            t.join(STOP_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            LOG.warn(
                    "election '{}': {} has not finished stopping after {} ms (a callback still running?); it resigns "
                            + "when it does",
                    name,
                    participant,
                    STOP_WAIT_MILLIS);
        }
    }

    @Override
    public boolean isLeader() {
        Lease t = held;
        return t != null && t.isValid();
    }

    @Override
    public OptionalLong epoch() {
        Lease t = held;
        return t != null && t.isValid() ? t.fencingToken() : OptionalLong.empty();
    }

    @Override
    public Optional<Holder> currentLeader() {
        return ledger.holder(name);
    }

    @Override
    public void fence(Connection connection) throws SQLException {
        Lease t = held;
        if (t == null || !t.isValid()) {
            throw new LeaseLostException(
                    name,
                    t == null ? participant : t.owner(),
                    participant + " does not lead '" + name + "' now, so its writes must not commit");
        }
        ledger.fence(connection, name, t.fencingToken().orElseThrow(), t.owner());
    }

    private void run() {
        Backoff backoff = new Backoff();
        boolean failing = false;
        while (!stopped) {
            try {
                round();
                backoff = new Backoff();
                failing = false;
            } catch (RuntimeException e) {
                if (stopped) {
                    return; // stop() cut an acquire short: the engine gives back whatever it may still win
                }
                if (!failing) {
                    LOG.warn("election '{}': {} campaigns again after a fault: {}", name, participant, e.toString());
                }
                failing = true;
                long pause = backoff.nextNanos();
                interruptibly(() -> {
                    LockSupport.parkNanos(this, pause);
                    return null;
                });
            }
        }
    }

    /** One round: Valkey lease (if used), database lease, lead, release both. */
    private void round() {
        Lease filter = null;
        Lease db = null;
        try {
            if (valkey != null && !breaker.isOpen()) {
                filter = valkeyLease();
                if (filter == null && !breaker.isOpen()) {
                    return; // held elsewhere all along, or a first Valkey failure: the next round tries again
                }
            }
            db = waitFor(database, databaseOptions);
            if (db != null && !stopped) {
                lead(db);
            }
        } finally {
            held = null;
            if (db != null) {
                db.release(); // at once after stop() began, even if it never led: a late win is given back
            }
            if (filter != null) {
                filter.release();
            }
        }
    }

    /**
     * The Valkey lease, or null when it stayed held elsewhere or Valkey failed (counted by the breaker). The first
     * failure of an outage is one WARN in plain words, the retries inside it DEBUG lines, and its end one INFO.
     */
    private @Nullable Lease valkeyLease() {
        Leases v = Objects.requireNonNull(valkey);
        try {
            Lease lease = waitFor(v, valkeyOptions);
            breaker.success();
            if (valkeyFailing) {
                valkeyFailing = false;
                LOG.info("election '{}': Valkey answers {} again; the election uses it again", name, participant);
            }
            return lease;
        } catch (LeaseStoreUnavailableException e) {
            breaker.failure();
            if (!valkeyFailing) {
                valkeyFailing = true;
                LOG.warn(
                        "election '{}': {} could not ask Valkey for the role ({}); the database decides the election "
                                + "alone until Valkey answers again, one line when it does",
                        name,
                        participant,
                        v.describe(e));
            } else {
                LOG.debug("election '{}': Valkey still fails: {}", name, e.toString());
            }
            return null;
        }
    }

    /** Waits up to one TTL for the role's lease; null if it stayed held elsewhere or the election stopped. */
    private @Nullable Lease waitFor(Leases leases, LeaseOptions options) {
        return interruptibly(() -> leases.acquire(name, options.ttl(), options).orElse(null));
    }

    /** Leads until the database lease is lost or the election stops; tells the listener before the lease is released. */
    private void lead(Lease db) {
        lost.drainPermits();
        db.onLost(l -> lost.release());
        held = db;
        long epoch = db.fencingToken().orElseThrow();
        LOG.info("election '{}': {} leads, epoch {} (owner {})", name, participant, epoch, db.owner());
        callback(() -> listener.elected(epoch));
        while (!stopped && db.isValid()) {
            interruptibly(() -> awaitLoss(db));
        }
        held = null;
        String reason = stopped ? "stopped" : "database lease lost: " + lostReason(db);
        LOG.info("election '{}': {} no longer leads (epoch {}): {}", name, participant, epoch, reason);
        callback(() -> listener.revoked(reason));
    }

    private Boolean awaitLoss(Lease db) {
        try {
            return lost.tryAcquire(db.remaining().toNanos() + 1_000_000L, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            return Boolean.FALSE; // stop(): the loop sees it
        }
    }

    private static String lostReason(Lease db) {
        String why = db instanceof DefaultLease d ? d.lostReason() : null;
        return why != null ? why : "no successful renewal before the local validity deadline";
    }

    /** Runs a wait that stop() may cut short; null if the election is stopped already. Clears stop()'s interrupt. */
    private <T> @Nullable T interruptibly(Supplier<T> wait) {
        synchronized (lifecycle) {
            if (stopped) {
                return null;
            }
            waiting = true;
        }
        try {
            return wait.get();
        } finally {
            synchronized (lifecycle) {
                waiting = false;
                Thread.interrupted(); // the interrupt ends the wait only: releases and callbacks run uninterrupted
            }
        }
    }

    private void callback(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError) {
                throw e;
            }
            LOG.error("election '{}': the listener threw; the election goes on", name, e);
        } finally {
            Thread.interrupted(); // a listener that interrupts the election's thread must not cut short what follows
        }
    }

    private static String ownerId(@Nullable String label) {
        String l = label == null ? ManagementFactory.getRuntimeMXBean().getName() : label;
        if (l.isBlank() || l.length() > 100) {
            throw new IllegalArgumentException(
                    "an election's label must have 1 to 100 characters, not only blanks (got '" + l + "')");
        }
        byte[] b = new byte[4];
        RANDOM.nextBytes(b);
        return l + "#" + HexFormat.of().formatHex(b);
    }

    @Override
    public String toString() {
        Lease t = held;
        return "LeaderElection[" + name + ", " + participant
                + (t != null && t.isValid()
                        ? ", leader, epoch " + t.fencingToken().orElse(0)
                        : ", not leader") + "]";
    }
}
