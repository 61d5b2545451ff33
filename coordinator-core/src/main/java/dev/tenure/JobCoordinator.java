package dev.tenure;

import dev.tenure.integration.ClaimedRun;
import dev.tenure.integration.RunClaim;
import dev.tenure.metrics.RunMetrics;
import dev.tenure.spi.RunLedger;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

// Over 400 lines: the public run API (run, runInTransaction and begin, with their overloads), each documented here;
// the claim is RunClaims, the Valkey filter ValkeyFilter, the drain RunsInProgress.
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
        /** The database alone: the database mode. */
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

    private final ValkeyFilter valkeyFilter;
    private final RunClaims claims;
    private final LeaseOptions options;
    private final Duration drainTimeout;
    private final String nodeName;
    private final RunObserver observer;
    private final RunsInProgress runs = new RunsInProgress();

    private volatile boolean closed;

    /**
     * Not public: {@link Tenure} builds the coordinator from its settings ({@link Tenure.Builder}); tests of this
     * package build one from {@code Tenure.builder()...settings()}.
     *
     * @param database leases on the database store
     * @param valkey   leases on Valkey, the contention filter; null for the database mode
     * @param ledger   the run ledger of the same database
     */
    JobCoordinator(Settings settings, Leases database, @Nullable Leases valkey, RunLedger ledger, RunMetrics metrics) {
        this.valkeyFilter = new ValkeyFilter(valkey, settings);
        this.claims = new RunClaims(
                Objects.requireNonNull(database, "database"),
                Objects.requireNonNull(ledger, "ledger"),
                valkeyFilter,
                settings,
                Objects.requireNonNull(metrics, "metrics"),
                runs);
        this.options = settings.leaseDefaults();
        this.drainTimeout = settings.drainTimeout();
        this.nodeName = settings.nodeName();
        this.observer = settings.observationRegistry() == null
                ? RunObserver.NONE
                : ObservedRuns.of(
                        settings.observationRegistry(),
                        settings.observationConvention(),
                        valkeyFilter.mode(),
                        nodeName);
    }

    public Mode mode() {
        return valkeyFilter.mode();
    }

    /**
     * True once {@link #close()} began: from then on {@code run} refuses new runs with an
     * {@link IllegalStateException}. A host scheduler that still fires while its application shuts down can ask this
     * first and skip the fire quietly: another node, or the sweeper, takes it.
     */
    public boolean isClosed() {
        return closed;
    }

    /** This node's name, as the runs' log lines and observations carry it ({@link Tenure.Builder#nodeName}). */
    public String nodeName() {
        return nodeName;
    }

    /** The lease TTL and renewal of runs that are not given their own ({@link Tenure.Builder#leaseDefaults}). */
    public LeaseOptions leaseOptions() {
        return options;
    }

    /**
     * True while a Valkey outage lasts in {@link Mode#VALKEY_WITH_DATABASE_FALLBACK}: from the first failure to the first
     * call Valkey answers after it, however many retries fail inside it. Runs then use the database alone.
     */
    public boolean inFallback() {
        return valkeyFilter.inFallback();
    }

    /**
     * What a probe of Valkey found ({@link Tenure#valkeyProblem()}): a problem counts as a failure (it may start an
     * outage, with its WARN), an answer ends an outage.
     */
    void valkeyProbed(Optional<String> problem) {
        valkeyFilter.probed(problem);
    }

    /**
     * How many Valkey outages sent runs to the database alone ({@link #inFallback()}): each counted once when it starts,
     * however many retries fail inside it.
     */
    public long fallbacks() {
        return valkeyFilter.fallbacks();
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
     * instead of the coordinator's {@link Tenure.Builder#leaseDefaults}); the fencing token is always taken.
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
        try (ActiveRun run = (ActiveRun) ((RunClaim.Claimed) claim).run();
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
        try (ActiveRun run = (ActiveRun) ((RunClaim.Claimed) claim).run();
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
     * {@link ClaimedRun#finish} (from any thread), which records the outcome and releases the leases.
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
            ActiveRun run = (ActiveRun) c.run(); // the claims make only ActiveRuns
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
        return claims.claim(jobKey, fireKey, policy, options, traceId);
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

    /** {@link #close(Duration)} with the drain timeout of its Tenure ({@link Tenure.Builder#drainTimeout}). */
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
     * <p>The {@link Leases} it runs on stay open: {@link Tenure#close} closes them after this. Idempotent: a second call
     * returns at once. An interrupt ends the wait early, and the runs still going are abandoned.
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
        runs.drain(drainTimeout);
    }
}
