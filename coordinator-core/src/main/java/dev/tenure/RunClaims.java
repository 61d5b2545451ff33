package dev.tenure;

import dev.tenure.integration.RunClaim;
import dev.tenure.metrics.RunMetrics;
import dev.tenure.spi.RunLedger;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The claim half of a run (steps 1 to 4 of DESIGN.md's protocol, {@link JobCoordinator}): the Valkey filter, the fire's
 * state, the database claim with its epoch, and the fire's run row. What it hands back is either a claimed
 * {@link ActiveRun}, tracked until it ends, or the outcome of a run that did not start.
 */
final class RunClaims {

    private final Leases database;
    private final RunLedger ledger;
    private final ValkeyFilter valkeyFilter;
    private final Ticker ticker;
    private final RunMetrics metrics;
    private final String nodeName;
    private final RunsInProgress runs;

    RunClaims(
            Leases database,
            RunLedger ledger,
            ValkeyFilter valkeyFilter,
            Settings settings,
            RunMetrics metrics,
            RunsInProgress runs) {
        this.database = database;
        this.ledger = ledger;
        this.valkeyFilter = valkeyFilter;
        this.ticker = settings.ticker();
        this.metrics = metrics;
        this.nodeName = settings.nodeName();
        this.runs = runs;
    }

    /** The claim; {@code traceId} (null: none) is kept on the run's row by the statement that starts it. */
    RunClaim claim(String jobKey, String fireKey, RunPolicy policy, LeaseOptions options, @Nullable String traceId) {
        long start = ticker.nanoTime();
        long deadline = start + policy.maxWait().toNanos();
        ValkeyFilter.Pass pass = valkeyFilter.pass(jobKey, fireKey, policy, options);
        if (pass instanceof ValkeyFilter.Pass.Done) {
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
        if (pass instanceof ValkeyFilter.Pass.HeldElsewhere) {
            return notObtained(jobKey, fireKey, policy, start, false);
        }
        Lease filter = pass instanceof ValkeyFilter.Pass.Through t ? t.lease() : null;
        boolean fallback = pass instanceof ValkeyFilter.Pass.DatabaseAlone a && a.fallback();
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
        if (r instanceof RunLedger.FireStart.AlreadyDone d) {
            return Optional.of(alreadyDone(jobKey, fireKey, policy, d, waited, fallback));
        }
        if (r instanceof RunLedger.FireClaim.Started st) {
            Lease db = database.adopt(jobKey, owner, options.withFencingToken(true), st.epoch(), sentAt);
            return Optional.of(new RunClaim.Claimed(runs.tracked(new ActiveRun(
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
            RunLedger.FireStart.AlreadyDone done,
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
        if (fs instanceof RunLedger.FireStart.AlreadyDone done) {
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
        return new RunClaim.Claimed(runs.tracked(new ActiveRun(
                ledger, metrics, ticker, jobKey, fireKey, epoch, runId, db, filter, waited, fallback, null, nodeName)));
    }

    private RunClaim notObtained(String jobKey, String fireKey, RunPolicy policy, long start, boolean fallback) {
        RunOutcome.Status s = policy.maxWait().isZero()
                ? RunOutcome.Status.SKIPPED_HELD_ELSEWHERE
                : RunOutcome.Status.TIMED_OUT_WAITING;
        return new RunClaim.NotClaimed(
                RunOutcome.notRun(s, jobKey, fireKey, 0, null, Duration.ofNanos(ticker.nanoTime() - start), fallback));
    }
}
