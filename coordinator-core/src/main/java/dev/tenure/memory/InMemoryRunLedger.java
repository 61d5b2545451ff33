package dev.tenure.memory;

import dev.tenure.Holder;
import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.StaleOwnerException;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.RunLedger;
import dev.tenure.spi.ScheduleLedger;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RunLedger} in memory, for users' unit tests, over an {@link InMemoryLeaseStore} whose fencing tokens are the
 * epochs: a job's current epoch and owner are its latest holder's. <b>Single process, not transactional</b>: the
 * {@link Connection} arguments are ignored (null is fine), and a {@link #complete} takes effect at once: a transaction
 * the caller rolls back afterwards does not undo it, so the fire counts as completed although the business writes did
 * not commit. In the test kit's {@code RunLedgerContract} this is the one rule it follows differently, declared as
 * {@code transactional() == false}. Otherwise it follows the database ledger's rules (a completed fire is final; a stale
 * epoch or another owner is refused; RUNNING runs of older epochs are ABANDONED when a newer epoch starts one; finish
 * and complete touch only the run of the presented epoch; a fire recorded MISSED stays MISSED, its holder's finish is
 * STALE and its completion refused) and passes the same contract. Thread-safe.
 */
public final class InMemoryRunLedger implements RunLedger {

    /** {@code previousRunId}: the run a MISSED record replaced (as the database's {@code previous_run_id}), or null. */
    private record Row(
            String jobKey,
            String runId,
            String owner,
            long epoch,
            String status,
            @Nullable String previousRunId) {

        Row withStatus(String newStatus) {
            return new Row(jobKey, runId, owner, epoch, newStatus, previousRunId);
        }

        /** A run of {@code job} under {@code epochOf}, still RUNNING: the only kind finish and complete change. */
        boolean runningUnder(String job, long epochOf) {
            return jobKey.equals(job) && epoch == epochOf && status.equals("RUNNING");
        }
    }

    private final Map<String, Row> runs = new ConcurrentHashMap<>();
    private final Clock clock;
    private final InMemoryLeaseStore leases;
    private final String ledgerId = UUID.randomUUID().toString();

    /** @param leases the store the coordinator's database leases are taken from */
    public InMemoryRunLedger(InMemoryLeaseStore leases) {
        this(leases, Clock.systemUTC());
    }

    /** @param clock the wall clock of schedule registrations (a new schedule is swept from the time it is registered) */
    public InMemoryRunLedger(InMemoryLeaseStore leases, Clock clock) {
        this.leases = leases;
        this.clock = clock;
    }

    /** The status of the fire's run ({@code RUNNING}, {@code COMPLETED}, ...), if it has one. */
    public Optional<String> statusOf(String jobKey, String fireKey) {
        return Optional.ofNullable(runs.get(id(jobKey, fireKey))).map(Row::status);
    }

    private static String id(String jobKey, String fireKey) {
        return jobKey + "\n" + fireKey; // a job key has no whitespace
    }

    /** The epoch is the job's latest and still {@code owner}'s (live or expired, as the database's epoch check). */
    private boolean current(String jobKey, long epoch, String owner) {
        return epoch == leases.fencingToken(jobKey)
                && leases.epochOwner(jobKey).filter(owner::equals).isPresent();
    }

    /** A random id per instance: each in-memory ledger is a ledger of its own. */
    @Override
    public String ledgerId() {
        return ledgerId;
    }

    @Override
    public Optional<FireStart.AlreadyDone> completedRun(String jobKey, String fireKey) {
        Row r = runs.get(id(jobKey, fireKey));
        return r != null && (r.status().equals("COMPLETED") || r.status().equals("MISSED"))
                ? Optional.of(done(r))
                : Optional.empty();
    }

    @Override
    public synchronized FireStart startRun(String jobKey, String fireKey, long epoch, String owner) {
        fence(null, jobKey, epoch, owner);
        abandonOlderRuns(jobKey, epoch);
        Row r = runs.get(id(jobKey, fireKey));
        if (r != null && (r.status().equals("COMPLETED") || r.status().equals("MISSED"))) {
            return done(r);
        }
        if (r != null && r.status().equals("RUNNING") && r.epoch() == epoch) {
            return new FireStart.InProgress(r.runId(), r.owner(), r.epoch());
        }
        String runId = UUID.randomUUID().toString();
        runs.put(id(jobKey, fireKey), new Row(jobKey, runId, owner, epoch, "RUNNING", null));
        return new FireStart.Started(runId);
    }

    private static FireStart.AlreadyDone done(Row r) {
        return new FireStart.AlreadyDone(
                r.runId(), r.owner(), r.epoch(), r.status().equals("MISSED"));
    }

    /** As the database ledger: the owners of older epochs lost their leases, so their RUNNING runs are ABANDONED. */
    private void abandonOlderRuns(String jobKey, long epoch) {
        runs.replaceAll((id, r) ->
                r.jobKey().equals(jobKey) && r.epoch() < epoch && r.status().equals("RUNNING")
                        ? r.withStatus("ABANDONED")
                        : r);
    }

    /**
     * As the database ledger, from the run's row: ALREADY_DONE if it completed; STALE if it is no longer the
     * holder's RUNNING run (recorded MISSED, taken over, gone), and then nothing changes.
     */
    @Override
    public synchronized Finished finish(
            String jobKey, long epoch, String owner, String runId, boolean succeeded, @Nullable String error) {
        Map.@Nullable Entry<String, Row> e = find(runId);
        if (e != null && e.getValue().status().equals("COMPLETED")) {
            return Finished.ALREADY_DONE;
        }
        if (e == null || !e.getValue().runningUnder(jobKey, epoch)) {
            return Finished.STALE;
        }
        boolean ok = current(jobKey, epoch, owner);
        runs.put(e.getKey(), e.getValue().withStatus(!ok ? "REJECTED_STALE" : succeeded ? "COMPLETED" : "FAILED"));
        return ok ? Finished.RECORDED : Finished.STALE;
    }

    /**
     * A RUNNING run of the current epoch and owner turns ABANDONED, and the job's lease is cleared in the same step, as
     * the database ledger does; a run no longer the holder's (recorded MISSED, taken over, gone) is STALE, and its lease
     * is left to the holder's release.
     */
    @Override
    public synchronized Finished abandon(String jobKey, long epoch, String owner, String runId, String reason) {
        Map.@Nullable Entry<String, Row> e = find(runId);
        boolean completed = e != null && e.getValue().status().equals("COMPLETED");
        boolean ok = current(jobKey, epoch, owner);
        if (ok && (completed || (e != null && e.getValue().status().equals("RUNNING")))) {
            release(jobKey, owner);
        }
        if (completed) {
            return Finished.ALREADY_DONE;
        }
        if (!ok || e == null || !e.getValue().runningUnder(jobKey, epoch)) {
            return Finished.STALE;
        }
        runs.put(e.getKey(), e.getValue().withStatus("ABANDONED"));
        return Finished.RECORDED;
    }

    /** The coordinator takes the same one-step path as on Postgres: claim and start, then outcome and release. */
    @Override
    public boolean claimsAndStarts() {
        return true;
    }

    /**
     * As the database ledger's one statement: a fire that completed (or was recorded MISSED) is reported without a
     * claim; otherwise the job's lease is taken for {@code owner} where no other lease is live, and the fire started
     * under its new epoch (RUNNING runs of older epochs turn ABANDONED, the fire's own one is taken over).
     */
    @Override
    public synchronized FireClaim claimAndStart(String jobKey, String fireKey, String owner, Duration ttl) {
        Optional<FireStart.AlreadyDone> done = completedRun(jobKey, fireKey);
        if (done.isPresent()) {
            return done.get();
        }
        AcquireResult r = await(leases.tryAcquire(jobKey, owner, ttl, true), jobKey);
        if (r instanceof AcquireResult.Held h) {
            return new FireClaim.Held(h.owner(), leases.fencingToken(jobKey), h.remaining());
        }
        long epoch = ((AcquireResult.Acquired) r).fencingToken().orElseThrow();
        FireStart started = startRun(jobKey, fireKey, epoch, owner);
        if (started instanceof FireStart.Started s) {
            return new FireClaim.Started(epoch, s.runId(), ttl);
        }
        release(jobKey, owner); // not reached: the fire was not done under this lock, and the epoch is new
        throw new IllegalStateException("fire '" + fireKey + "' of job '" + jobKey + "' did not start under its new "
                + "epoch " + epoch + ": " + started);
    }

    /**
     * {@link #finish}, and the job's lease cleared where {@code epoch} of {@code owner} is still current and the run was
     * still theirs (not STALE).
     */
    @Override
    public synchronized Finished finishAndRelease(
            String jobKey, long epoch, String owner, String runId, boolean succeeded, @Nullable String error) {
        Finished f = finish(jobKey, epoch, owner, runId, succeeded, error);
        if (f != Finished.STALE && current(jobKey, epoch, owner)) {
            release(jobKey, owner);
        }
        return f;
    }

    /** {@link #complete} and the release, at once: this ledger has no transaction to wait for. */
    @Override
    public synchronized boolean completeAndRelease(
            Connection connection, String jobKey, long epoch, String owner, String runId) {
        complete(connection, jobKey, epoch, owner, runId);
        release(jobKey, owner);
        return true;
    }

    private void release(String jobKey, String owner) {
        await(leases.release(jobKey, owner), jobKey);
    }

    /** The store's answer; a store that fails (a test's fault injection) fails the step as the database would. */
    private static <T> T await(CompletableFuture<T> call, String jobKey) {
        try {
            return call.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof LeaseStoreUnavailableException u) {
                throw u;
            }
            throw new LeaseStoreUnavailableException(
                    "the in-memory lease store failed for '" + jobKey + "': " + e.getCause(), jobKey, e.getCause());
        }
    }

    /** Current epoch and owner, and a live lease (the database fence also checks the expiry). */
    @Override
    public void fence(@Nullable Connection connection, String jobKey, long epoch, String owner) {
        if (!current(jobKey, epoch, owner)
                || leases.holder(jobKey).filter(owner::equals).isEmpty()) {
            throw new StaleOwnerException(
                    jobKey,
                    epoch,
                    owner,
                    leases.fencingToken(jobKey),
                    leases.epochOwner(jobKey).orElse(null),
                    null);
        }
    }

    @Override
    public synchronized void complete(Connection connection, String jobKey, long epoch, String owner, String runId) {
        fence(connection, jobKey, epoch, owner);
        Map.@Nullable Entry<String, Row> e = find(runId);
        if (e != null && e.getValue().runningUnder(jobKey, epoch)) {
            runs.put(e.getKey(), e.getValue().withStatus("COMPLETED"));
        } else if (e == null || !e.getValue().status().equals("COMPLETED")) {
            if (missed(e, runId)) {
                throw new StaleOwnerException(
                        jobKey,
                        epoch,
                        owner,
                        "the sweeper recorded its fire MISSED (run " + runId + "): the fire is no longer this run's "
                                + "to complete");
            }
            throw new IllegalStateException("run " + runId + " of job '" + jobKey + "' cannot complete under epoch "
                    + epoch + ": its row is "
                    + (e == null
                            ? "missing"
                            : e.getValue().status() + " under epoch "
                                    + e.getValue().epoch()) + " (complete only the run this context belongs to)");
        }
    }

    @Override
    public Optional<Holder> holder(String jobKey) {
        return leases.holder(jobKey).map(o -> new Holder(o, leases.fencingToken(jobKey), null));
    }

    /** The run's row is MISSED, or was replaced by a MISSED record ({@link #recordMissed}). */
    private boolean missed(Map.@Nullable Entry<String, Row> e, String runId) {
        if (e != null) {
            return e.getValue().status().equals("MISSED");
        }
        for (Row r : runs.values()) {
            if (runId.equals(r.previousRunId()) && r.status().equals("MISSED")) {
                return true;
            }
        }
        return false;
    }

    private Map.@Nullable Entry<String, Row> find(String runId) {
        for (Map.Entry<String, Row> e : runs.entrySet()) {
            if (e.getValue().runId().equals(runId)) {
                return e;
            }
        }
        return null;
    }

    /** The state of a fire's run as the sweeper reads it (package-private: the in-memory schedule ledger's). */
    synchronized ScheduleLedger.FireState fireState(String jobKey, String fireKey) {
        Row r = runs.get(id(jobKey, fireKey));
        return r == null ? ScheduleLedger.FireState.NONE : state(r);
    }

    /** The fire keys of every run of {@code jobKey}, with their states. */
    synchronized Map<String, ScheduleLedger.FireState> fireStates(String jobKey) {
        Map<String, ScheduleLedger.FireState> out = new HashMap<>();
        runs.forEach((id, r) -> {
            if (r.jobKey().equals(jobKey)) {
                out.put(id.substring(jobKey.length() + 1), state(r));
            }
        });
        return out;
    }

    private ScheduleLedger.FireState state(Row r) {
        if (r.status().equals("RUNNING")) {
            return current(r.jobKey(), r.epoch(), r.owner())
                            && leases.holder(r.jobKey())
                                    .filter(r.owner()::equals)
                                    .isPresent()
                    ? ScheduleLedger.FireState.RUNNING
                    : ScheduleLedger.FireState.RUNNING_LEASE_ENDED;
        }
        return ScheduleLedger.FireState.valueOf(r.status());
    }

    /** Records the fire MISSED unless a run of it is live or settled; true if it did. */
    synchronized boolean recordMissed(String jobKey, String fireKey, String sweeper) {
        Row r = runs.get(id(jobKey, fireKey));
        ScheduleLedger.FireState s = r == null ? ScheduleLedger.FireState.NONE : state(r);
        if (s.settled() || s == ScheduleLedger.FireState.RUNNING) {
            return false;
        }
        runs.put(
                id(jobKey, fireKey),
                new Row(
                        jobKey,
                        UUID.randomUUID().toString(),
                        sweeper,
                        r == null ? leases.fencingToken(jobKey) : r.epoch(),
                        "MISSED",
                        r == null ? null : r.runId()));
        return true;
    }

    /** The wall clock of this ledger: the in-memory schedule ledger's "database clock". */
    Clock clock() {
        return clock;
    }
}
