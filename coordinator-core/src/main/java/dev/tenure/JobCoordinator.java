package dev.tenure;

import dev.tenure.metrics.RunMetrics;
import dev.tenure.spi.RunLedger;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a job at most once per fire across processes: the protocol of DESIGN.md.
 * <ol>
 * <li>Valkey lease, the contention filter: the losers learn it in one round trip and never touch the database. So does a
 *     process that arrives after the fire completed: the winner leaves a marker of the completed fire in place of its
 *     lease for one TTL, and an acquire for that fire answers "done".</li>
 * <li>The fire's state is read first: a completed fire is final, and is reported without a claim.</li>
 * <li>Database lease + epoch: the winner claims the job's row; its epoch is the fencing token.</li>
 * <li>The fire's run row: a completed fire is never run again.</li>
 * <li>The work, with a {@link JobContext} that exposes the epoch, the lease state, cancellation, the fence check
 *     for the work's own transactions and the completion of the fire inside them
 *     ({@link JobContext#completeInTransaction}).</li>
 * <li>The outcome, recorded only under the current epoch and owner. A fire completed in its own transaction stays
 *     completed. Then the database lease is released, and the Valkey lease after that, never before the commit.</li>
 * </ol>
 * Both leases are renewed by their watchdogs. Losing the database lease cancels the context and gives the Valkey lease
 * back at once; losing the Valkey lease alone cancels nothing, since the database lease still keeps every other
 * process out.
 *
 * <p><b>Why switching modes cannot let two processes run one job.</b> The database lease is taken in every
 * mode, and it is the authority. A process runs work only while it holds the job's database lease, and records its
 * outcome only under the epoch that lease gave it. The lease is claimed by the database's own clock, and only where no
 * other owner's lease is live. The Valkey lease is a filter in front of it. In
 * {@link Mode#VALKEY_WITH_DATABASE_FALLBACK} a process that cannot reach Valkey skips the filter and goes straight to
 * the database claim. That claim still refuses it while any other process holds the job, with or without Valkey. So a
 * Valkey outage, a failover that loses the lease key, or two processes in different modes can only cost contention,
 * never exclusion.
 *
 * <p>Thread-safe; one per application.
 */
public final class JobCoordinator implements AutoCloseable {

    /** Which layers a run uses. */
    public enum Mode {
        /**
         * Valkey lease, then database. While Valkey is unreachable, a run fails closed with a typed error: no run starts
         * without Valkey.
         * A run that started goes on through a later outage while its database lease holds, as in every mode: the
         * database lease, not the Valkey lease, keeps the other processes out.
         */
        VALKEY,
        /** Database only: the DB leader-election mode. */
        DATABASE,
        /** Valkey lease, then database. While Valkey is unreachable and the breaker is open, database only. The default. */
        VALKEY_WITH_DATABASE_FALLBACK
    }

    /** How long {@link #close()} waits for runs in progress by default. */
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(10);
    /** How the reason of a run abandoned by {@link #close} begins (its run row's error). */
    public static final String SHUTDOWN = "shutdown";
    /** The integration of runs begun through this class's own methods, as their observations name it. */
    public static final String INTEGRATION = "coordinator";

    private static final Logger LOG = LoggerFactory.getLogger(JobCoordinator.class);

    private final @Nullable Leases valkey;
    private final Leases database;
    private final RunLedger ledger;
    private final Mode mode;
    private final LeaseOptions options;
    private final CircuitBreaker breaker;
    private final FallbackLog fallbackLog;
    private final Ticker ticker;
    private final RunMetrics metrics;
    private final boolean closesLeases;
    private final Duration drainTimeout;
    private final @Nullable String nodeName;
    private final RunObserver observer;
    /** Runs claimed and not ended yet; its monitor is notified when one ends. */
    private final Set<ActiveRun> active = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;
    /** Set once {@link #close} stopped waiting: a run claimed from then on is abandoned at once. */
    private volatile boolean abandoning;

    private JobCoordinator(Builder b) {
        this.valkey = b.valkey;
        this.database = b.database;
        this.ledger = b.ledger;
        this.mode = b.valkey == null ? Mode.DATABASE : b.mode == null ? Mode.VALKEY_WITH_DATABASE_FALLBACK : b.mode;
        this.options = b.options;
        this.ticker = b.ticker;
        this.metrics = b.metrics;
        this.closesLeases = b.closesLeases;
        this.drainTimeout = b.drainTimeout;
        this.breaker = new CircuitBreaker(b.breakerThreshold, b.breakerOpenFor, b.ticker);
        this.fallbackLog = new FallbackLog(b.ticker, mode);
        this.nodeName = b.nodeName;
        this.observer = b.observationRegistry == null
                ? RunObserver.NONE
                : ObservedRuns.of(b.observationRegistry, b.observationConvention, mode, b.nodeName);
    }

    /**
     * Not public: {@link Tenure} builds the coordinator and sets every knob ({@link Tenure.Builder}); tests of this
     * package wire one by hand.
     *
     * @param database leases on the database store
     * @param ledger   the run ledger of the same database
     */
    static Builder builder(Leases database, RunLedger ledger) {
        return new Builder(database, ledger);
    }

    public Mode mode() {
        return mode;
    }

    /**
     * True once {@link #close()} began: from then on {@code run} refuses new runs with an
     * {@link IllegalStateException}. A host scheduler that still fires while its application shuts down can ask this
     * first and skip the fire quietly: another node, or the sweeper, takes it.
     */
    public boolean isClosed() {
        return closed;
    }

    /** This node's name, as the runs' log lines and observations carry it ({@link Builder#nodeName}); null if none. */
    public @Nullable String nodeName() {
        return nodeName;
    }

    /** The lease TTL and renewal of runs that are not given their own ({@link Builder#leaseOptions}). */
    public LeaseOptions leaseOptions() {
        return options;
    }

    /**
     * True while a Valkey outage lasts in {@link Mode#VALKEY_WITH_DATABASE_FALLBACK}: from the first failure to the first
     * call Valkey answers after it, however many retries fail inside it. Runs then use the database alone.
     */
    public boolean inFallback() {
        return mode == Mode.VALKEY_WITH_DATABASE_FALLBACK && fallbackLog.inOutage();
    }

    /** True while runs skip Valkey: the breaker is open after failures (between its retries). */
    private boolean bypassesValkey() {
        return mode == Mode.VALKEY_WITH_DATABASE_FALLBACK && breaker.isOpen();
    }

    /**
     * What a probe of Valkey found ({@link Tenure#valkeyProblem()}): a problem counts as a failure (it may start an
     * outage, with its WARN), an answer ends an outage.
     */
    void valkeyProbed(Optional<String> problem) {
        if (problem.isPresent()) {
            fallbackLog.unreachable(problem.get(), breaker.openFor());
        } else {
            fallbackLog.valkeyAnswered();
        }
    }

    /**
     * How many Valkey outages sent runs to the database alone ({@link #inFallback()}): each counted once when it starts,
     * however many retries fail inside it.
     */
    public long fallbacks() {
        return fallbackLog.outages();
    }

    /**
     * Runs {@code work} for fire {@code fireKey} of job {@code jobKey}, at most once at a time across all processes,
     * and never again once the fire completed. Faults of the database, and of Valkey in {@link Mode#VALKEY}, are
     * {@link LeaseStoreUnavailableException}s: no lease, no run. A thread interrupted before it holds the leases runs
     * nothing. Its outcome is {@link RunOutcome.Status#SKIPPED_HELD_ELSEWHERE} or
     * {@link RunOutcome.Status#TIMED_OUT_WAITING}, and the flag stays set. Its interrupted Valkey acquire is not counted
     * as a Valkey failure. If the work throws
     * {@link InterruptedException}, the outcome is FAILED and the thread's interrupt flag is set again. Log lines written
     * on the calling thread while the work runs and its outcome is recorded carry the run's {@link RunMdc} keys.
     */
    public <T> RunOutcome<T> run(String jobKey, String fireKey, RunPolicy policy, JobWork<T> work) {
        return run(jobKey, fireKey, policy, options, work);
    }

    /**
     * {@link #run(String, String, RunPolicy, JobWork)} with this run's own lease TTL and renewal ({@code options}
     * instead of the coordinator's {@link Builder#leaseOptions}); the fencing token is always taken.
     */
    public <T> RunOutcome<T> run(
            String jobKey, String fireKey, RunPolicy policy, LeaseOptions options, JobWork<T> work) {
        return run(jobKey, fireKey, policy, options, INTEGRATION, work);
    }

    /**
     * {@link #run(String, String, RunPolicy, LeaseOptions, JobWork)} for an integration: {@code integration} names it
     * in the run's observations ({@code scheduled}, {@code quartz}, {@code batch}; default {@link #INTEGRATION}).
     */
    public <T> RunOutcome<T> run(
            String jobKey,
            String fireKey,
            RunPolicy policy,
            LeaseOptions options,
            String integration,
            JobWork<T> work) {
        Objects.requireNonNull(work, "work");
        RunClaim claim = begin(jobKey, fireKey, policy, options, integration);
        if (claim instanceof RunClaim.NotClaimed not) {
            return retype(not.outcome());
        }
        try (ActiveRun run = ((RunClaim.Claimed) claim).run();
                RunMdc.Scope log = RunMdc.open(run)) {
            T result = null;
            Throwable error = null;
            try {
                result = work.run(run);
            } catch (Exception | AssertionError e) {
                error = e;
            }
            return finished(run, result, error);
        }
    }

    /**
     * A run that is one database transaction on {@code dataSource}: {@code work} runs in it, and the same transaction
     * then checks the epoch, completes the fire and releases the job's database lease, so that its one commit makes
     * the business writes, "this fire is done" and "the job is free" durable together, or none of them. The Valkey
     * lease is released after the commit. A run costs two commits: the claim with the fire's start, and this one.
     *
     * <p>Unlike {@link JobContext#completeInTransaction}, the epoch is checked at the end of the transaction, in the
     * statement that completes it, not before the work: a holder paused past its lease does not hold its successor's
     * claim back; its transaction rolls back at the check ({@link RunOutcome.Status#LEASE_LOST}). From that check to the
     * commit the job's row is locked, so a claim waits for the commit. Nothing of the run may follow the commit: work
     * that has more to do after its transaction belongs in {@link #run}.
     *
     * <p>When the ledger cannot complete and release in one statement, or when a Spring transaction is active on the
     * calling thread (Spring commits it later), this is {@link #run} with {@link JobContext#completeInTransaction}: the
     * same guarantees, one commit more. Inside a Spring transaction the outcome is recorded and the leases released
     * when that transaction ends, and the outcome returned meanwhile is EXECUTED, completed in it (another run of the
     * same job in that transaction finds the job held until then). At REPEATABLE READ and
     * SERIALIZABLE, where the transaction cannot update the job's row after a renewal, it completes the fire, and the
     * lease is released after the commit. With spring-jdbc on the class path, Spring's data access on
     * {@code dataSource} inside {@code work} uses the run's transaction.
     */
    public <T> RunOutcome<T> runInTransaction(
            String jobKey, String fireKey, RunPolicy policy, DataSource dataSource, JobConnectionWork<T> work) {
        return runInTransaction(jobKey, fireKey, policy, options, dataSource, work);
    }

    /** {@link #runInTransaction(String, String, RunPolicy, DataSource, JobConnectionWork)} with this run's own lease options. */
    public <T> RunOutcome<T> runInTransaction(
            String jobKey,
            String fireKey,
            RunPolicy policy,
            LeaseOptions options,
            DataSource dataSource,
            JobConnectionWork<T> work) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(work, "work");
        RunClaim claim = begin(jobKey, fireKey, policy, options);
        if (claim instanceof RunClaim.NotClaimed not) {
            return retype(not.outcome());
        }
        try (ActiveRun run = ((RunClaim.Claimed) claim).run();
                RunMdc.Scope log = RunMdc.open(run)) {
            boolean oneStatement = run.releasesInTransaction() && !CompletingTransaction.inSpringTransaction();
            // the work's result outlives a completion or commit that failed: the ledger may still say EXECUTED
            AtomicReference<T> produced = new AtomicReference<>();
            AtomicBoolean released = new AtomicBoolean();
            T result = null;
            Throwable error = null;
            try {
                result = oneStatement
                        ? CompletingTransaction.committed(dataSource, c -> {
                            produced.set(WorkFailed.call(work, run, c));
                            released.set(run.completeAndRelease(c));
                            return produced.get();
                        })
                        : CompletingTransaction.run(run, dataSource, c -> WorkFailed.call(work, run, c));
            } catch (WorkFailed e) {
                error = e.getCause();
            } catch (Exception | AssertionError e) {
                error = e;
            }
            if (oneStatement) {
                if (error == null && released.get()) {
                    return run.committed(result); // the connection is back in its pool before the Valkey release
                }
                result = error == null ? result : produced.get();
                run.renewalsResumed(); // not released by the commit (it failed, or the isolation level forbade it)
            }
            return finished(run, result, error);
        }
    }

    /** Records the outcome (the commit may have happened: the ledger tells); an interrupted work's flag is set again. */
    private static <T> RunOutcome<T> finished(ActiveRun run, @Nullable T result, @Nullable Throwable error) {
        try {
            return run.finish(result, error);
        } finally {
            if (error instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Carries a checked exception of a {@link JobConnectionWork} through {@link ConnectionWork}. */
    private static final class WorkFailed extends RuntimeException {
        WorkFailed(Exception cause) {
            super(cause);
        }

        static <T> @Nullable T call(JobConnectionWork<T> work, JobContext context, Connection c) throws SQLException {
            try {
                return work.run(context, c);
            } catch (SQLException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new WorkFailed(e);
            }
        }
    }

    /**
     * The first half of {@link #run}, for hosts that start and end a run in two callbacks: takes the leases and
     * starts the fire's run row. On {@link RunClaim.Claimed} the caller does the work and then calls
     * {@link ActiveRun#finish} (from any thread), which records the outcome and releases the leases.
     *
     * @throws LeaseStoreUnavailableException on faults of the database (and of Valkey in {@link Mode#VALKEY});
     *                                        nothing is held then
     * @throws IllegalStateException          once the coordinator is closed
     */
    public RunClaim begin(String jobKey, String fireKey, RunPolicy policy) {
        return begin(jobKey, fireKey, policy, options);
    }

    /** {@link #begin(String, String, RunPolicy)} with this run's own lease TTL and renewal ({@code options}). */
    public RunClaim begin(String jobKey, String fireKey, RunPolicy policy, LeaseOptions options) {
        return begin(jobKey, fireKey, policy, options, INTEGRATION);
    }

    /**
     * {@link #begin(String, String, RunPolicy, LeaseOptions)} for an integration: {@code integration} names it in the
     * run's observations ({@code quartz}, {@code batch}; default {@link #INTEGRATION}). The run's observation starts
     * here, as a child of the calling thread's current observation, and ends when the run ends.
     */
    public RunClaim begin(String jobKey, String fireKey, RunPolicy policy, LeaseOptions options, String integration) {
        Objects.requireNonNull(integration, "integration");
        RunObserver.Run observed = observer.start(jobKey, fireKey, integration);
        RunClaim claim;
        try {
            claim = claim(jobKey, fireKey, policy, options, observed.traceId());
        } catch (RuntimeException | Error e) {
            observed.failed(e);
            throw e;
        }
        if (claim instanceof RunClaim.Claimed c) {
            ActiveRun run = c.run();
            run.observe(observed);
            observed.claimed(run.epoch(), run.owner(), run.viaFallback());
        } else {
            observed.notClaimed(((RunClaim.NotClaimed) claim).outcome());
        }
        return claim;
    }

    /** The claim; {@code traceId} (null: none) is kept on the run's row by the statement that starts it. */
    private RunClaim claim(
            String jobKey, String fireKey, RunPolicy policy, LeaseOptions options, @Nullable String traceId) {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(options, "options");
        if (closed) {
            throw new IllegalStateException("the JobCoordinator is closed: no new run of job '" + jobKey + "'");
        }
        if (fireKey == null || fireKey.isEmpty() || fireKey.length() > 200) {
            throw new IllegalArgumentException("fireKey must be 1..200 characters (got " + fireKey + ")");
        }
        long start = ticker.nanoTime();
        long deadline = start + policy.maxWait().toNanos();
        boolean fallback = false;
        Lease filter = null;
        if (mode != Mode.DATABASE && !bypassesValkey()) {
            try {
                // a filter: losing it must not interrupt the work (the database lease decides). A run that reports the
                // earlier run of a done fire asks the database for it, so it does not ask the filter about the fire.
                FilterAnswer v = Objects.requireNonNull(valkey)
                        .acquireFire(
                                jobKey,
                                policy.reportEarlierRun() ? null : fireKey,
                                policy.maxWait(),
                                options.withInterruptOnLoss(false));
                breaker.success();
                fallbackLog.valkeyAnswered();
                if (v.fireDone()) {
                    // the marker is written only after the database recorded this fire COMPLETED, which is final
                    return new RunClaim.NotClaimed(RunOutcome.notRun(
                            RunOutcome.Status.SKIPPED_ALREADY_DONE,
                            jobKey,
                            fireKey,
                            0,
                            null,
                            Duration.ofNanos(ticker.nanoTime() - start),
                            false));
                }
                if (v.lease() == null) {
                    return notObtained(jobKey, fireKey, policy, start, false);
                }
                filter = v.lease();
            } catch (LeaseStoreUnavailableException e) {
                if (Thread.currentThread().isInterrupted()) {
                    // the caller's interrupt, not Valkey's fault: as an acquire interrupted before it was sent
                    return notObtained(jobKey, fireKey, policy, start, false);
                }
                fallbackLog.unreachable(Objects.requireNonNull(valkey).describe(e), breaker.openFor());
                if (mode == Mode.VALKEY) {
                    throw e;
                }
                breaker.failure();
                fallback = true;
            }
        } else if (mode != Mode.DATABASE) {
            fallback = true;
        }
        Lease db = null;
        RunClaim claim = null;
        try {
            Optional<RunClaim> first = ledger.claimsAndStarts()
                    ? claimAndStart(jobKey, fireKey, policy, options, filter, start, deadline, fallback, traceId)
                    : completedEarlier(jobKey, fireKey, policy, start, fallback);
            if (first.isPresent()) {
                claim = first.get();
                if (claim instanceof RunClaim.Claimed) {
                    filter = null;
                }
                return claim;
            }
            Duration left = Duration.ofNanos(Math.max(0, deadline - ticker.nanoTime()));
            Optional<Lease> got = database.acquire(jobKey, left, options.withFencingToken(true));
            if (got.isEmpty()) {
                return notObtained(jobKey, fireKey, policy, start, fallback);
            }
            db = got.get();
            claim = claimFire(jobKey, fireKey, policy, db, filter, start, fallback, traceId);
            if (claim instanceof RunClaim.Claimed) {
                db = null;
                filter = null;
            }
            return claim;
        } finally {
            if (db != null) {
                db.release();
            }
            // a completed fire's next process learns it from Valkey
            Leases.releaseFilter(filter, fireKey, completed(claim));
        }
    }

    /** True if the database answered that the fire completed (not missed: that is reported as such). */
    private static boolean completed(@Nullable RunClaim claim) {
        return claim instanceof RunClaim.NotClaimed n && n.outcome().status() == RunOutcome.Status.SKIPPED_ALREADY_DONE;
    }

    /**
     * The one-statement path: the fire's completion read, the database claim and the fire's start in one commit. Empty
     * when the job is held elsewhere and the policy still has time to wait: then the caller waits on the database
     * leases (woken by releases) and starts the fire in a second step.
     */
    private Optional<RunClaim> claimAndStart(
            String jobKey,
            String fireKey,
            RunPolicy policy,
            LeaseOptions options,
            @Nullable Lease filter,
            long start,
            long deadline,
            boolean fallback,
            @Nullable String traceId) {
        String owner = database.newOwner();
        long sentAt = database.nanoTime(); // the lease's local deadline runs on the database leases' clock, not ours
        RunLedger.FireClaim r;
        try {
            r = ledger.claimAndStart(jobKey, fireKey, owner, options.ttl(), traceId);
        } catch (LeaseStoreUnavailableException e) {
            database.cleanUp(jobKey, owner, options.ttl()); // the claim may have committed
            throw e;
        }
        Duration waited = Duration.ofNanos(ticker.nanoTime() - start);
        if (r instanceof RunLedger.FireStart.AlreadyCompleted d) {
            return Optional.of(alreadyDone(jobKey, fireKey, policy, d, waited, fallback));
        }
        if (r instanceof RunLedger.FireClaim.Started st) {
            Lease db = database.adopt(jobKey, owner, options.withFencingToken(true), st.epoch(), sentAt);
            return Optional.of(new RunClaim.Claimed(tracked(new ActiveRun(
                    ledger,
                    metrics,
                    ticker,
                    jobKey,
                    fireKey,
                    st.epoch(),
                    st.runId(),
                    db,
                    filter,
                    waited,
                    fallback,
                    database,
                    nodeName))));
        }
        return deadline - ticker.nanoTime() > 0
                ? Optional.empty()
                : Optional.of(notObtained(jobKey, fireKey, policy, start, fallback));
    }

    /** A completed fire is final: it is reported as done without a claim (no epoch spent, nothing written). */
    private Optional<RunClaim> completedEarlier(
            String jobKey, String fireKey, RunPolicy policy, long start, boolean fallback) {
        return ledger.completedRun(jobKey, fireKey)
                .map(done -> alreadyDone(
                        jobKey, fireKey, policy, done, Duration.ofNanos(ticker.nanoTime() - start), fallback));
    }

    private static RunClaim alreadyDone(
            String jobKey,
            String fireKey,
            RunPolicy policy,
            RunLedger.FireStart.AlreadyCompleted done,
            Duration waited,
            boolean fallback) {
        return new RunClaim.NotClaimed(RunOutcome.notRun(
                done.missed() ? RunOutcome.Status.SKIPPED_MISSED : RunOutcome.Status.SKIPPED_ALREADY_DONE,
                jobKey,
                fireKey,
                policy.reportEarlierRun() ? done.epoch() : 0,
                policy.reportEarlierRun() ? done.owner() : null,
                waited,
                fallback));
    }

    private RunClaim claimFire(
            String jobKey,
            String fireKey,
            RunPolicy policy,
            Lease db,
            @Nullable Lease filter,
            long start,
            boolean fallback,
            @Nullable String traceId) {
        long epoch = db.fencingToken()
                .orElseThrow(() -> new IllegalStateException(
                        "the database lease store returned no epoch for job '" + jobKey + "'"));
        Duration waited = Duration.ofNanos(ticker.nanoTime() - start);
        RunLedger.FireStart fs = ledger.startRun(jobKey, fireKey, epoch, db.owner(), traceId);
        if (fs instanceof RunLedger.FireStart.AlreadyCompleted done) {
            return alreadyDone(jobKey, fireKey, policy, done, waited, fallback);
        }
        if (fs instanceof RunLedger.FireStart.InProgress other) {
            return new RunClaim.NotClaimed(RunOutcome.notRun(
                    RunOutcome.Status.SKIPPED_HELD_ELSEWHERE,
                    jobKey,
                    fireKey,
                    other.epoch(),
                    other.owner(),
                    waited,
                    fallback));
        }
        String runId = ((RunLedger.FireStart.Started) fs).runId();
        return new RunClaim.Claimed(tracked(new ActiveRun(
                ledger, metrics, ticker, jobKey, fireKey, epoch, runId, db, filter, waited, fallback, null, nodeName)));
    }

    /**
     * Tracks {@code run} until it ends, for {@link #close}. A run claimed after close() stopped waiting is abandoned at
     * once (its leases released), and the caller gets the same error as a run begun after close().
     */
    private ActiveRun tracked(ActiveRun run) {
        active.add(run);
        run.whenEnded(() -> {
            active.remove(run);
            synchronized (active) {
                active.notifyAll();
            }
        });
        if (abandoning) {
            run.abandon(SHUTDOWN + ": the coordinator closed while the run was being claimed");
            throw new IllegalStateException("the JobCoordinator is closed: no new run of job '" + run.jobKey() + "'");
        }
        return run;
    }

    static Duration checkDrain(Duration timeout) {
        Objects.requireNonNull(timeout, "drainTimeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("drainTimeout must not be negative (got " + timeout + ")");
        }
        return timeout;
    }

    @SuppressWarnings("unchecked")
    private static <T> RunOutcome<T> retype(RunOutcome<Void> o) {
        return (RunOutcome<T>) (RunOutcome<?>) o;
    }

    private RunClaim notObtained(String jobKey, String fireKey, RunPolicy policy, long start, boolean fallback) {
        RunOutcome.Status s = policy.maxWait().isZero()
                ? RunOutcome.Status.SKIPPED_HELD_ELSEWHERE
                : RunOutcome.Status.TIMED_OUT_WAITING;
        return new RunClaim.NotClaimed(
                RunOutcome.notRun(s, jobKey, fireKey, 0, null, Duration.ofNanos(ticker.nanoTime() - start), fallback));
    }

    /** {@link #close(Duration)} with the drain timeout of the builder ({@link Builder#drainTimeout}). */
    @Override
    public void close() {
        close(drainTimeout);
    }

    /**
     * Hands the coordinator's runs over, so that no lease outlives it. From now on it refuses new runs: {@link #begin}
     * and {@link #run} throw {@link IllegalStateException}. It waits up to {@code drainTimeout} for the runs in progress,
     * which record their outcomes and release as usual. Then it abandons those still going. Each such run's row turns
     * ABANDONED with a reason that starts with {@code shutdown}. Its database lease is cleared under its epoch and its
     * Valkey lease released, so another process can claim the job at once rather than after the TTL. An abandoned run's
     * thread is not interrupted, but its fenced writes are refused from then on, and its outcome is
     * {@link RunOutcome.Status#LEASE_LOST}.
     *
     * <p>Last, it closes the {@link Leases} it was given, only if it was built with
     * {@link Builder#closesLeases(boolean) closesLeases(true)}. Idempotent: a second call returns at once. An interrupt
     * ends the wait early, and the runs still going are abandoned.
     *
     * @throws IllegalArgumentException if {@code drainTimeout} is negative
     */
    public void close(Duration drainTimeout) {
        checkDrain(drainTimeout);
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        awaitRuns(drainTimeout);
        abandoning = true;
        for (ActiveRun run : List.copyOf(active)) {
            cutShort(run);
        }
        if (closesLeases) {
            if (valkey != null) {
                valkey.close();
            }
            database.close();
        }
    }

    /**
     * Abandons {@code run}, which did not end within the drain, and says so in one INFO line: this node is the one that
     * knows, and the next node to look at the fire only finds its row.
     */
    private static void cutShort(ActiveRun run) {
        RunOutcome<?> o =
                run.abandon(SHUTDOWN + ": its holder stopped, and the run did not end within the drain timeout");
        if (o == null) {
            return; // it ended meanwhile
        }
        if (o.status() == RunOutcome.Status.EXECUTED) {
            LOG.info(
                    "{}: fire {} was still running when this node's drain timeout ran out; it had completed its fire "
                            + "in its own transaction, so the fire is done",
                    run.jobKey(),
                    run.fireKey());
            return;
        }
        LOG.info(
                "{}: fire {} cut short by this node's shutdown: it had run {} ms when the drain timeout ran out. "
                        + "Recorded ABANDONED (reason shutdown) under epoch {} and its leases released: nothing it did "
                        + "not commit itself is kept, another node may claim the job at once, and the fire is caught "
                        + "up or recorded MISSED by its job's missed-fire policy",
                run.jobKey(),
                run.fireKey(),
                o.ran().toMillis(),
                run.epoch());
    }

    /** Waits up to {@code drain} for every tracked run to end. */
    private void awaitRuns(Duration drain) {
        long deadline = System.nanoTime() + drain.toNanos();
        synchronized (active) {
            while (!active.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(active, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Configuration of a {@link JobCoordinator}. */
    public static final class Builder {
        private final Leases database;
        private final RunLedger ledger;
        private @Nullable Leases valkey;
        private @Nullable Mode mode;
        private LeaseOptions options = LeaseOptions.ofTtl(Duration.ofSeconds(30));
        private Ticker ticker = Ticker.system();
        private int breakerThreshold = CircuitBreaker.DEFAULT_FAILURES;
        private Duration breakerOpenFor = CircuitBreaker.DEFAULT_OPEN_FOR;
        private RunMetrics metrics = RunMetrics.none();
        private boolean closesLeases;
        private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
        private @Nullable String nodeName;
        private @Nullable Object observationRegistry;
        private @Nullable Object observationConvention;

        private Builder(Leases database, RunLedger ledger) {
            this.database = Objects.requireNonNull(database, "database");
            this.ledger = Objects.requireNonNull(ledger, "ledger");
        }

        /** Leases on Valkey (the contention filter). Without it the coordinator runs in {@link Mode#DATABASE}. */
        public Builder valkey(Leases leases) {
            this.valkey = Objects.requireNonNull(leases, "leases");
            return this;
        }

        /**
         * With Valkey: {@link Mode#VALKEY_WITH_DATABASE_FALLBACK} (the default), {@link Mode#VALKEY} (fail closed) or
         * {@link Mode#DATABASE} (Valkey not used). Without Valkey the mode is {@link Mode#DATABASE}; asking for a Valkey
         * mode then is an error at {@link #build()}.
         */
        public Builder mode(Mode m) {
            this.mode = Objects.requireNonNull(m, "mode");
            return this;
        }

        /** TTL and renewal of both leases (default 30 s TTL, renewed every 10 s). */
        public Builder leaseOptions(LeaseOptions o) {
            this.options = Objects.requireNonNull(o, "options");
            return this;
        }

        /** Where runs are reported (default: nowhere); {@code new MicrometerRunMetrics(registry)} for Micrometer. */
        public Builder metrics(RunMetrics m) {
            this.metrics = Objects.requireNonNull(m, "metrics");
            return this;
        }

        /** Whether {@link JobCoordinator#close()} closes the {@link Leases} given to the builder (default false). */
        public Builder closesLeases(boolean closes) {
            this.closesLeases = closes;
            return this;
        }

        /**
         * How long {@link JobCoordinator#close()} waits for runs in progress before it abandons them (default
         * {@link JobCoordinator#DEFAULT_DRAIN_TIMEOUT}, 10 s; zero abandons them at once).
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder drainTimeout(Duration timeout) {
            this.drainTimeout = checkDrain(timeout);
            return this;
        }

        /**
         * This node's name for the runs' log lines ({@link RunMdc#NODE}) and observations (default none). The name
         * recorded on the run rows is the database store's ({@link Tenure.Builder#nodeName} sets both).
         */
        public Builder nodeName(String name) {
            this.nodeName = NodeName.check(name);
            return this;
        }

        /**
         * Observes every run with Micrometer: {@code tenure.run} with its claim, work and completion
         * ({@link dev.tenure.observation.TenureRunObservationDocumentation}), each a child of the observation current on
         * the thread that begins the run. A registry with a tracing handler turns them into spans, and the run's trace id
         * is kept on its row (by the statement that starts the run). Default none: then runs create no observation at all.
         *
         * @param registry an {@code io.micrometer.observation.ObservationRegistry} (micrometer-observation is optional)
         * @throws IllegalArgumentException if it is not one
         */
        public Builder observationRegistry(Object registry) {
            this.observationRegistry = ObservedRuns.checkRegistry(registry);
            return this;
        }

        /**
         * The names and key values of the runs' observations, instead of
         * {@link dev.tenure.observation.DefaultTenureRunObservationConvention}. Without it, a global convention
         * registered on the registry that supports the context is used before the default.
         *
         * @param convention a {@link dev.tenure.observation.TenureRunObservationConvention}
         * @throws IllegalArgumentException if it is not one
         */
        public Builder observationConvention(Object convention) {
            this.observationConvention = ObservedRuns.checkConvention(convention);
            return this;
        }

        public Builder ticker(Ticker t) {
            this.ticker = Objects.requireNonNull(t, "ticker");
            return this;
        }

        /**
         * Valkey fallback: open after {@code failures} consecutive failures, for {@code openFor} (default
         * {@link Tenure#DEFAULT_BREAKER_FAILURES}, {@link Tenure#DEFAULT_BREAKER_OPEN_FOR}).
         */
        public Builder fallbackBreaker(int failures, Duration openFor) {
            CircuitBreaker.check(failures, openFor);
            this.breakerThreshold = failures;
            this.breakerOpenFor = openFor;
            return this;
        }

        public JobCoordinator build() {
            if (mode != null && mode != Mode.DATABASE && valkey == null) {
                throw new IllegalArgumentException(
                        "mode " + mode + " needs Valkey leases: call valkey(leases), or leave "
                                + "the mode out for the database mode");
            }
            return new JobCoordinator(this);
        }
    }
}
