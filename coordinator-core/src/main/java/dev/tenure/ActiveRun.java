package dev.tenure;

import dev.tenure.integration.ClaimedRun;
import dev.tenure.metrics.RunMetrics;
import dev.tenure.spi.RunLedger;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

// Over 400 lines: one run's life (its work's fence checks and completion, finish, abandon at shutdown, and a Spring
// transaction that completes it and ends later) turns on one monitor; split, that lock would span several classes.
/**
 * A claimed run of one fire, between {@link JobCoordinator#begin} and {@link #finish}: the holder of the job's
 * database lease (and Valkey lease, if used) and of the fire's run row. It is the run's {@link JobContext}.
 *
 * <p>{@link #finish} records the outcome under this run's epoch (only if it is still current: the database decides,
 * not the local lease deadline), then releases the database lease and after it the Valkey lease. The database lease
 * alone decides whether the run is cancelled: a lost Valkey lease (an outage, a failover) leaves the run going. A lost
 * database lease gives the Valkey lease back at once, in the background, so a stuck work does not keep other nodes
 * out through it. A run that
 * {@link #complete completed} in its own transaction is EXECUTED whatever happened after that commit. A completion
 * counts only if the run's row is COMPLETED after the commit, whatever the transaction's propagation: a run whose work
 * called {@link #complete} but whose completion was rolled back (with its transaction, or to a savepoint) is FAILED,
 * so that the fire runs again. {@link #finish} may be called from any thread, once; later calls return the first
 * outcome. {@link #close()} finishes a run that was not
 * finished as FAILED ("closed without an outcome"). A coordinator that closes while the run is still going abandons it
 * after its drain timeout ({@link JobCoordinator#close(Duration)}): ABANDONED, both leases released at once. If the
 * process dies instead, the leases expire by their TTL and the next claim marks the run ABANDONED (unless it
 * completed).
 *
 * <p>Thread-safe.
 */
final class ActiveRun implements ClaimedRun {

    private final RunLedger ledger;
    private final RunMetrics metrics;
    private final Ticker ticker;
    private final String jobKey;
    private final String fireKey;
    private final long epoch;
    private final String runId;
    private final Lease db;
    private final @Nullable Lease filter;
    private final Duration waited;
    private final boolean viaFallback;
    /** The database leases the lease was adopted into when the ledger records the outcome and releases in one step. */
    private final @Nullable Leases releasedByOutcome;

    private final long began;
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final AtomicBoolean finishing = new AtomicBoolean();
    private final AtomicInteger fenceChecks = new AtomicInteger();
    /** True once the work asked to {@link #complete} the fire: only a committed completion then makes it a success. */
    private volatile boolean completionAsked;

    private @Nullable RunOutcome<?> outcome;
    /** Spring transactions that completed this run's fire and have not ended yet ({@link #completionPending}). */
    private int openCompletions;
    /** A {@link #finish} asked for while such a transaction was open: recorded when the last one ends. */
    private @Nullable Deferred deferred;
    /** Told once the outcome is set (the coordinator stops tracking the run). */
    private volatile Runnable onEnded = () -> {};
    /** True while {@link #completeAndRelease} holds the lease's call slot (the run's own thread only). */
    private boolean renewalsHeld;
    /** This node's name; null when it has none. */
    private final @Nullable String node;
    /** The run's observations ({@link Tenure.Builder#observationRegistry}); none by default. */
    private volatile RunObserver.Run observation = RunObserver.Run.NONE;

    ActiveRun(
            RunLedger ledger,
            RunMetrics metrics,
            Ticker ticker,
            String jobKey,
            String fireKey,
            long epoch,
            String runId,
            Lease db,
            @Nullable Lease filter,
            Duration waited,
            boolean viaFallback,
            @Nullable Leases releasedByOutcome,
            @Nullable String node) {
        this.ledger = ledger;
        this.metrics = metrics;
        this.ticker = ticker;
        this.jobKey = jobKey;
        this.fireKey = fireKey;
        this.epoch = epoch;
        this.runId = runId;
        this.db = db;
        this.filter = filter;
        this.waited = waited;
        this.viaFallback = viaFallback;
        this.releasedByOutcome = releasedByOutcome;
        this.node = node;
        this.began = ticker.nanoTime();
        onCancelled(() -> cancelled.set(true));
        if (filter instanceof DefaultLease f) {
            // the job is no longer ours: the Valkey lease must not keep other nodes out while the work is stuck
            db.onLost(l -> f.releaseInBackground());
        }
    }

    @Override
    public String jobKey() {
        return jobKey;
    }

    @Override
    public String fireKey() {
        return fireKey;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public String owner() {
        return db.owner();
    }

    @Override
    public @Nullable String node() {
        return node;
    }

    /** The run's observations, from its claim on. */
    void observe(RunObserver.Run o) {
        this.observation = o;
    }

    RunObserver.Run observation() {
        return observation;
    }

    /** The job's database lease: its state, remaining validity and epoch ({@link Lease#fencingToken()}). */
    @Override
    public Lease lease() {
        return db;
    }

    /** True if the run went to the database directly because Valkey was unreachable. */
    @Override
    public boolean viaFallback() {
        return viaFallback;
    }

    /** Fence checks (and completions) that passed so far. */
    @Override
    public int fenceChecks() {
        return fenceChecks.get();
    }

    /** The database lease decides: the Valkey lease is a filter, and losing it does not end the run. */
    @Override
    public boolean isLeaseValid() {
        return db.isValid();
    }

    @Override
    public boolean isCancelled() {
        return cancelled.get() || !db.isValid();
    }

    @Override
    public void fence(Connection connection) throws SQLException {
        checked(() -> ledger.fence(connection, jobKey, epoch, db.owner()));
    }

    @Override
    public void complete(Connection connection) throws SQLException {
        completionAsked = true;
        checked(() -> ledger.complete(connection, jobKey, epoch, db.owner(), runId));
    }

    private interface Check {
        void run() throws SQLException;
    }

    /** Counts a passed check; a stale epoch is counted as a rejected fence and rethrown. */
    private void checked(Check check) throws SQLException {
        try {
            check.run();
        } catch (TenureException e) {
            metrics.fenceRejected(jobKey);
            throw e;
        }
        fenceChecks.incrementAndGet();
    }

    /**
     * Runs {@code action} once when the database lease is lost (at once if it already is) while the work runs, on
     * Tenure's watchdog thread: it must not block. For interrupting or stopping the work. Never runs once
     * {@link #finish} has begun: the work is over by then. Losing the Valkey lease does not run it: the database lease
     * is the authority, and it still keeps every other process out.
     */
    @Override
    public ActiveRun onCancelled(Runnable action) {
        Objects.requireNonNull(action, "action");
        AtomicBoolean once = new AtomicBoolean();
        Runnable guarded = () -> {
            if (!finishing.get() && once.compareAndSet(false, true)) {
                action.run();
            }
        };
        db.onLost(l -> guarded.run());
        return this;
    }

    /** True once {@link #finish} (or {@link #close()}) ran. */
    @Override
    public synchronized boolean isFinished() {
        return outcome != null;
    }

    /**
     * Records the outcome and releases the leases. {@code error == null} means the work succeeded
     * ({@link RunOutcome.Status#EXECUTED}); otherwise {@link RunOutcome.Status#FAILED}; either becomes
     * {@link RunOutcome.Status#LEASE_LOST} if the database no longer has this run's epoch and owner (the outcome is
     * rejected as stale). A run that completed in its own committed transaction is {@link RunOutcome.Status#EXECUTED}
     * in any case (with {@code error}, if the work threw after that commit). A run whose work called {@link #complete}
     * succeeds only that way: if its run row is not COMPLETED now, its completion was rolled back (with its
     * transaction, or to a savepoint such as Spring's {@code PROPAGATION_NESTED} rolls back to), and the run is
     * recorded {@link RunOutcome.Status#FAILED} with an error that says so, so that the fire runs again. Idempotent: a
     * second call returns the first call's outcome.
     *
     * <p>If the fire was completed in a Spring transaction that has not ended yet (the run was called inside it), the
     * outcome is recorded and the leases released when that transaction ends: its completion holds the fire's run row
     * until then. Meanwhile this returns {@link RunOutcome.Status#EXECUTED}, completed in that transaction; if the
     * transaction rolls back, the run is recorded {@link RunOutcome.Status#FAILED}.
     *
     * @throws LeaseStoreUnavailableException if the database could not record it (the leases are released all
     *                                        the same; unless the run completed in its own transaction, the run row
     *                                        stays RUNNING until the next claim abandons it). The work's own
     *                                        exception, if any, is added to it as suppressed, and the outcome that
     *                                        later calls return keeps the work's result and exception
     */
    @SuppressWarnings("unchecked")
    @Override
    public synchronized <T> RunOutcome<T> finish(@Nullable T result, @Nullable Throwable error) {
        if (outcome != null) {
            return (RunOutcome<T>) outcome;
        }
        finishing.set(true);
        if (openCompletions > 0) {
            if (deferred == null) {
                deferred = new Deferred(result, error);
            }
            return outcome(RunOutcome.Status.EXECUTED, (T) deferred.result(), deferred.error(), true);
        }
        Duration ran = Duration.ofNanos(ticker.nanoTime() - began);
        observation.completing(error);
        boolean released = false;
        boolean completed = false;
        try {
            // after a completion, success is the ledger's COMPLETED row alone: asked as a failure, it answers
            // ALREADY_DONE if the completion committed, and records FAILED if it was rolled back
            Throwable failure = error == null && completionAsked ? completionRolledBack() : error;
            String why = failure == null ? null : String.valueOf(failure);
            RunLedger.Finished f;
            if (releasedByOutcome != null) {
                // one statement records the outcome and clears the lease (unless it is no longer ours)
                f = ledger.finishAndRelease(jobKey, epoch, db.owner(), runId, failure == null, why);
                released = f != RunLedger.Finished.STALE && releasedByOutcome.releasedInStore(db);
            } else {
                f = ledger.finish(jobKey, epoch, db.owner(), runId, failure == null, why);
            }
            RunOutcome.Status status = f == RunLedger.Finished.STALE
                    ? RunOutcome.Status.LEASE_LOST
                    : f == RunLedger.Finished.ALREADY_DONE || failure == null
                            ? RunOutcome.Status.EXECUTED
                            : RunOutcome.Status.FAILED;
            completed = status == RunOutcome.Status.EXECUTED;
            Throwable reported = status == RunOutcome.Status.FAILED
                    ? failure
                    : status == RunOutcome.Status.LEASE_LOST ? fencedOff(error) : error;
            return ended(outcome(status, ran, result, reported, f == RunLedger.Finished.ALREADY_DONE));
        } catch (RuntimeException e) {
            if (error != null && error != e) {
                e.addSuppressed(error); // the work's own exception travels with the fault
            }
            ended(outcome(RunOutcome.Status.FAILED, ran, result, error == null ? e : error, false));
            throw e;
        } finally {
            releaseLeases(released, completed);
        }
    }

    /**
     * Why a run was fenced off, as its outcome's error: the true cause (its epoch ended, and what holds the fire and the
     * job now), with the work's own exception, if any, as the cause. The work's exception (a rollback that failed on a
     * connection the fence ended, say) is a consequence, not the cause. A refused fence check already says it.
     */
    private LeaseLostException fencedOff(@Nullable Throwable error) {
        if (error instanceof LeaseLostException l) {
            return l;
        }
        String now;
        try {
            now = ledger.completedRun(jobKey, fireKey)
                    .map(d -> d.missed()
                            ? "the fire was since recorded MISSED"
                            : "the fire was since completed under epoch " + d.epoch() + " by owner " + d.owner())
                    .orElseGet(() -> ledger.holder(jobKey)
                            .map(h -> "the job is now held under epoch " + h.epoch() + " by owner " + h.owner())
                            .orElse("nobody holds the job now"));
        } catch (RuntimeException e) {
            now = "what holds the job now could not be read (" + e.getMessage() + ")";
        }
        return new LeaseLostException(
                jobKey,
                db.owner(),
                "its lease of epoch " + epoch + " ended while it ran (its node was paused or cut off for longer than "
                        + "the lease TTL) and " + now + ": the run was fenced off, and nothing it wrote in its fenced "
                        + "transactions was committed",
                error);
    }

    /** Why a run whose work called {@link #complete} failed although the work returned: its completion did not count. */
    private IllegalStateException completionRolledBack() {
        return new IllegalStateException("the completion of fire '" + fireKey + "' of job '" + jobKey + "' was rolled "
                + "back (with its transaction, or to a savepoint): the run row is not COMPLETED after the work, so the "
                + "run is FAILED and the fire runs again");
    }

    private record Deferred(
            @Nullable Object result, @Nullable Throwable error) {}

    /** The fire was completed in a Spring transaction that has not ended: {@link #finish} waits for its end. */
    synchronized void completionPending() {
        openCompletions++;
    }

    /**
     * A transaction of {@link #completionPending} ended (on its thread, after its commit or rollback). When it was the
     * last one and a {@link #finish} waits, the outcome is recorded now; a success whose transaction did not commit is
     * recorded as FAILED.
     */
    void completionEnded(boolean committed) {
        Deferred d;
        synchronized (this) {
            openCompletions--;
            if (openCompletions > 0 || deferred == null) {
                return;
            }
            d = deferred;
            deferred = null;
        }
        finish(
                d.result(),
                committed || d.error() != null
                        ? d.error()
                        : new IllegalStateException("the transaction " + "that completed fire '" + fireKey
                                + "' of job '" + jobKey + "' did not commit"));
    }

    /** The outcome of this run as it ends now: the time it ran is counted up to this call. */
    private <T> RunOutcome<T> outcome(
            RunOutcome.Status status, @Nullable T result, @Nullable Throwable error, boolean completedInTransaction) {
        return outcome(status, Duration.ofNanos(ticker.nanoTime() - began), result, error, completedInTransaction);
    }

    private <T> RunOutcome<T> outcome(
            RunOutcome.Status status,
            Duration ran,
            @Nullable T result,
            @Nullable Throwable error,
            boolean completedInTransaction) {
        return RunOutcome.ranHere(
                status,
                jobKey,
                fireKey,
                epoch,
                db.owner(),
                waited,
                ran,
                result,
                error,
                viaFallback,
                fenceChecks.get(),
                completedInTransaction);
    }

    private <T> RunOutcome<T> ended(RunOutcome<T> o) {
        outcome = o;
        try {
            metrics.runEnded(jobKey, o.status(), o.fenceChecks());
            if (o.status() == RunOutcome.Status.EXECUTED) {
                metrics.runTook(jobKey, o.ran());
            }
        } catch (RuntimeException e) {
            // metrics never break a run
        }
        observation.ended(o);
        return o;
    }

    /**
     * Runs {@code action} once the run has ended and released its leases (after {@link #finish}, {@link #committed} or
     * {@link #abandon}).
     */
    void whenEnded(Runnable action) {
        this.onEnded = action;
    }

    /**
     * Ends a run that is still going because its holder shuts down: records it ABANDONED with {@code reason} (unless it
     * completed in its own transaction), releases the database lease and then the Valkey lease. The work's thread is not
     * stopped: its later fenced writes are refused, and its {@link #finish} returns this call's outcome,
     * {@link RunOutcome.Status#LEASE_LOST} (or EXECUTED if the fire completed). A store fault is kept as a suppressed
     * exception of the outcome's error; the leases are released all the same. No-op if the run has ended.
     *
     * @return the outcome this call gave the run, or null if it had ended already
     */
    synchronized @Nullable RunOutcome<?> abandon(String reason) {
        if (outcome != null) {
            return null;
        }
        finishing.set(true);
        LeaseLostException why = new LeaseLostException(
                jobKey, db.owner(), "the run of fire '" + fireKey + "' was abandoned: " + reason);
        RunLedger.Finished f = RunLedger.Finished.STALE;
        boolean released = false;
        try {
            f = ledger.abandon(jobKey, epoch, db.owner(), runId, reason);
            released =
                    releasedByOutcome != null && f != RunLedger.Finished.STALE && releasedByOutcome.releasedInStore(db);
        } catch (RuntimeException e) {
            why.addSuppressed(e);
        }
        boolean completed = f == RunLedger.Finished.ALREADY_DONE;
        RunOutcome<?> o = ended(outcome(
                completed ? RunOutcome.Status.EXECUTED : RunOutcome.Status.LEASE_LOST,
                null,
                completed ? null : why,
                completed));
        releaseLeases(released, completed);
        return o;
    }

    /**
     * Releases the database lease (unless the ledger already did) and then the Valkey lease; then tells the owner. A
     * fire the database recorded COMPLETED leaves a marker in Valkey instead of a free key, so that the processes that
     * fire it later learn it there.
     */
    private void releaseLeases(boolean databaseReleased, boolean fireCompleted) {
        try {
            if (!databaseReleased) {
                db.release();
            }
            Leases.releaseFilter(filter, fireKey, fireCompleted);
        } finally {
            onEnded.run();
        }
    }

    /** True if the ledger can complete the fire and release the job in the work's own transaction. */
    boolean releasesInTransaction() {
        return releasedByOutcome != null && db instanceof DefaultLease;
    }

    /**
     * The last statement of a run that is one transaction ({@link JobCoordinator#runInTransaction}): the fence check,
     * the completion and the release of the database lease, in the transaction on {@code connection}. This process's
     * renewals of the lease are held back from here on (one would wait for the commit and then be refused): the
     * caller ends the run with {@link #committed} or, if the transaction did not commit or did not release the lease
     * (false), {@link #finish}.
     *
     * @return true if the commit releases the lease; false if it only completes the run (see {@link RunLedger})
     */
    boolean completeAndRelease(Connection connection) throws SQLException {
        observation.completing(null); // the completion and the commit are the run's last step
        completionAsked = true;
        holdRenewals();
        boolean[] released = new boolean[1];
        checked(() -> released[0] = ledger.completeAndRelease(connection, jobKey, epoch, db.owner(), runId));
        return released[0];
    }

    /** Takes the lease's call slot, after the renewal in flight (if any) has been answered or has timed out. */
    private void holdRenewals() throws SQLException {
        DefaultLease lease = (DefaultLease) db;
        boolean taken;
        try {
            taken = lease.takeCall(
                    ticker, ticker.nanoTime() + lease.options().ttl().toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted before completing job '" + jobKey + "'", e);
        }
        if (!taken) {
            throw new LeaseStoreUnavailableException(
                    "the renewal of job '" + jobKey + "' in flight did not end "
                            + "within the lease TTL; the run is not completed",
                    jobKey,
                    null);
        }
        renewalsHeld = true;
    }

    /**
     * Ends a run whose transaction committed after {@link #completeAndRelease}: EXECUTED, the database lease ended
     * locally (the commit released it), then the Valkey lease released. Idempotent.
     */
    @SuppressWarnings("unchecked")
    synchronized <T> RunOutcome<T> committed(@Nullable T result) {
        if (outcome != null) {
            return (RunOutcome<T>) outcome;
        }
        finishing.set(true);
        try {
            Objects.requireNonNull(releasedByOutcome, "committed without a release by the outcome")
                    .releasedInStore(db);
            return ended(outcome(RunOutcome.Status.EXECUTED, result, null, true));
        } finally {
            try {
                Leases.releaseFilter(filter, fireKey, true);
            } finally {
                onEnded.run();
            }
        }
    }

    /** After {@link #completeAndRelease} if the transaction did not commit: the watchdog may renew again. */
    void renewalsResumed() {
        if (renewalsHeld) {
            renewalsHeld = false;
            ((DefaultLease) db).endCall();
        }
    }

    /** Finishes the run as FAILED if nobody finished it; never throws for store faults. */
    @Override
    public void close() {
        if (isFinished()) {
            return;
        }
        try {
            finish(
                    null,
                    new IllegalStateException(
                            "run of job '" + jobKey + "' fire '" + fireKey + "' was closed without an outcome"));
        } catch (TenureException e) {
            // the leases are released; the next claim marks the run ABANDONED
        }
    }

    @Override
    public String toString() {
        return "ActiveRun[job=" + jobKey + ", fire=" + fireKey + ", epoch=" + epoch + ", owner=" + db.owner() + "]";
    }
}
