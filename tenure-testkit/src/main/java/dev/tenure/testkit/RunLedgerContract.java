package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.StaleOwnerException;
import dev.tenure.spi.RunLedger;
import dev.tenure.spi.RunLedger.Finished;
import dev.tenure.spi.RunLedger.FireStart;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

// Over 400 lines: one contract's tests in one class, as JUnit runs them against each ledger that extends it.
/**
 * The rules every {@link RunLedger} must follow, checked through the SPI alone: a fire starts once per epoch, a
 * completed fire is final, and only the current epoch of its owner records, completes or passes a fence. A ledger's test
 * extends this and provides the ledger, a way to claim a job for an owner (the epoch comes from the lease store that goes
 * with the ledger), a way to end a job's lease as its TTL would, and a transaction to complete runs in. Every test uses
 * fresh job keys, so one ledger may serve the whole class.
 *
 * <p><b>Capabilities.</b> {@link #transactional()} says whether a completion rolled back with its transaction is undone
 * (a database ledger) or counts at once (a ledger that takes no connection, as the in-memory one). The contract checks
 * whichever the ledger declares; it skips nothing. {@link #recordMissed} says whether the ledger records fires MISSED
 * (a sweeper's record); where it does, a holder whose fire was recorded MISSED is refused.
 */
public abstract class RunLedgerContract {

    /** The ledger under test (kept open across tests; the subclass closes what it opened). */
    protected abstract RunLedger ledger();

    /**
     * Claims {@code jobKey} for {@code owner} through the lease store that goes with the ledger and returns the new
     * epoch. The contract only claims jobs nobody holds (never claimed, or their lease ended by {@link #expire}).
     */
    protected abstract long claim(String jobKey, String owner);

    /**
     * Ends the job's current lease as its TTL running out would: its epoch and owner stay recorded, but the lease is no
     * longer live, and the next {@link #claim} succeeds.
     */
    protected abstract void expire(String jobKey);

    /**
     * A connection with a transaction open on the ledger's database (autocommit off), or null for a ledger that takes
     * no connection. The contract commits or rolls back and closes it.
     */
    protected abstract Connection openTransaction() throws SQLException;

    /** Whether a completion rolled back with its transaction is undone (true for a database ledger). */
    protected abstract boolean transactional();

    /**
     * Records fire {@code fireKey} of {@code jobKey} MISSED over its RUNNING run, as the ledger's sweeper does once the
     * run's lease has ended (the contract calls {@link #expire} first), and returns true. A ledger that records no MISSED
     * fires returns false (the default), and then the contract has nothing to check about them.
     */
    protected boolean recordMissed(String jobKey, String fireKey) throws SQLException {
        return false;
    }

    protected String freshJobKey() {
        return "run-contract-" + UUID.randomUUID();
    }

    /** A job's current holder: its epoch and owner. */
    private record Holder(String job, String owner, long epoch) {}

    /** Work in one transaction; what it throws is rethrown after the rollback. */
    @FunctionalInterface
    private interface ConnectionWork {
        void run(Connection connection) throws SQLException;
    }

    private Holder claimFresh() {
        String job = freshJobKey();
        String owner = "owner-" + UUID.randomUUID();
        return new Holder(job, owner, claim(job, owner));
    }

    /** The lease of {@code h} ends; a new owner claims the job with a newer epoch. */
    private Holder takeOver(Holder h) {
        expire(h.job());
        String owner = "owner-" + UUID.randomUUID();
        long epoch = claim(h.job(), owner);
        assertThat(epoch).as("a newer claim's epoch").isGreaterThan(h.epoch());
        return new Holder(h.job(), owner, epoch);
    }

    /** A new owner claims {@code h}'s job, whose lease has already ended, with a newer epoch. */
    private Holder claimAgain(Holder h) {
        String owner = "owner-" + UUID.randomUUID();
        long epoch = claim(h.job(), owner);
        assertThat(epoch).as("a newer claim's epoch").isGreaterThan(h.epoch());
        return new Holder(h.job(), owner, epoch);
    }

    private String start(Holder h, String fire) {
        FireStart s = ledger().startRun(h.job(), fire, h.epoch(), h.owner());
        assertThat(s).as("start of %s under epoch %s", fire, h.epoch()).isInstanceOf(FireStart.Started.class);
        return ((FireStart.Started) s).runId();
    }

    /** Runs {@code work} in a transaction, then commits it ({@code commit}) or rolls it back. */
    private void inTransaction(boolean commit, ConnectionWork work) throws SQLException {
        Connection c = openTransaction();
        try {
            work.run(c);
            if (c != null && commit) {
                c.commit();
            } else if (c != null) {
                c.rollback();
            }
        } catch (RuntimeException | SQLException e) {
            if (c != null) {
                c.rollback();
            }
            throw e;
        } finally {
            if (c != null) {
                c.close();
            }
        }
    }

    private void complete(Holder h, String runId) throws SQLException {
        inTransaction(true, c -> ledger().complete(c, h.job(), h.epoch(), h.owner(), runId));
    }

    /** Refused with the same exception on every ledger, naming the job. */
    private static void assertRefused(Holder h, ThrowingCallable call) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        StaleOwnerException.class, e -> assertThat(e.key()).isEqualTo(h.job()));
    }

    private static Holder as(Holder h, String owner) {
        return new Holder(h.job(), owner, h.epoch());
    }

    @Test
    void completedRun_fireNeverRunOrRunning_empty() {
        Holder a = claimFresh();
        assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
        start(a, "f");
        assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
    }

    @Test
    void startRun_sameEpochTwice_startedThenInProgress() {
        Holder a = claimFresh();
        String runId = start(a, "f");
        assertThat(ledger().startRun(a.job(), "f", a.epoch(), a.owner()))
                .isEqualTo(new FireStart.InProgress(runId, a.owner(), a.epoch()));
        assertThat(start(a, "g")).as("another fire of the job").isNotEqualTo(runId);
    }

    @Test
    void startRun_olderEpochForeignOwnerOrExpiredLease_refused() {
        Holder a = claimFresh();
        Holder b = takeOver(a);
        assertRefused(a, () -> ledger().startRun(a.job(), "f", a.epoch(), a.owner()));
        assertRefused(b, () -> ledger().startRun(b.job(), "f", b.epoch(), "intruder"));
        expire(b.job());
        assertRefused(b, () -> ledger().startRun(b.job(), "f", b.epoch(), b.owner()));
    }

    @Test
    void startRun_newerEpochWhileOlderRunIsRunning_takesTheFireOver() {
        Holder a = claimFresh();
        String first = start(a, "f");
        Holder b = takeOver(a);
        assertThat(start(b, "f")).isNotEqualTo(first);
    }

    @Test
    void finish_succeeded_recordedAndTheFireIsDoneForGood() {
        Holder a = claimFresh();
        String runId = start(a, "f");
        assertThat(ledger().finish(a.job(), a.epoch(), a.owner(), runId, true, null))
                .isEqualTo(Finished.RECORDED);
        FireStart.AlreadyDone done = new FireStart.AlreadyDone(runId, a.owner(), a.epoch());
        assertThat(ledger().completedRun(a.job(), "f")).contains(done);
        Holder b = takeOver(a);
        assertThat(ledger().startRun(b.job(), "f", b.epoch(), b.owner())).isEqualTo(done);
    }

    /** The database's epoch check decides, not the lease's expiry: nobody has claimed the job since. */
    @Test
    void finish_leaseExpiredButNotClaimedSince_recorded() {
        Holder a = claimFresh();
        String runId = start(a, "f");
        expire(a.job());
        assertThat(ledger().finish(a.job(), a.epoch(), a.owner(), runId, true, null))
                .isEqualTo(Finished.RECORDED);
        assertThat(ledger().completedRun(a.job(), "f")).isPresent();
    }

    @Test
    void finish_failed_recordedAndANewerEpochTakesTheFireOver() {
        Holder a = claimFresh();
        String first = start(a, "f");
        assertThat(ledger().finish(a.job(), a.epoch(), a.owner(), first, false, "boom"))
                .isEqualTo(Finished.RECORDED);
        assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
        Holder b = takeOver(a);
        assertThat(start(b, "f")).isNotEqualTo(first);
    }

    /** A holder that shuts down before its run ended: the run is ABANDONED, and the next epoch takes the fire over. */
    @Test
    void abandon_runningRun_recordedAndANewerEpochTakesTheFireOver() {
        Holder a = claimFresh();
        String first = start(a, "f");
        assertThat(ledger().abandon(a.job(), a.epoch(), a.owner(), first, "shutdown: contract"))
                .isEqualTo(Finished.RECORDED);
        assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
        ledger().finish(a.job(), a.epoch(), a.owner(), first, true, null); // late: the run is ABANDONED already
        assertThat(ledger().completedRun(a.job(), "f"))
                .as("after a late finish")
                .isEmpty();
        // a ledger that claims and starts in one step has cleared the lease; otherwise its holder releases it next
        Holder b = ledger().claimsAndStarts() ? claimAgain(a) : takeOver(a);
        assertThat(start(b, "f")).isNotEqualTo(first);
    }

    @Test
    void abandon_runCompletedInItsTransaction_staysCompleted() throws SQLException {
        Holder a = claimFresh();
        String runId = start(a, "f");
        complete(a, runId);
        assertThat(ledger().abandon(a.job(), a.epoch(), a.owner(), runId, "shutdown: contract"))
                .isEqualTo(Finished.ALREADY_DONE);
        assertThat(ledger().completedRun(a.job(), "f"))
                .contains(new FireStart.AlreadyDone(runId, a.owner(), a.epoch()));
    }

    @Test
    void abandon_olderEpoch_staleAndTheNewerRunUntouched() {
        Holder a = claimFresh();
        String first = start(a, "f");
        Holder b = takeOver(a);
        String second = start(b, "f");
        assertThat(ledger().abandon(a.job(), a.epoch(), a.owner(), first, "shutdown: contract"))
                .isEqualTo(Finished.STALE);
        assertThat(ledger().finish(b.job(), b.epoch(), b.owner(), second, true, null))
                .isEqualTo(Finished.RECORDED);
    }

    @Test
    void finish_olderEpoch_staleNothingCompletedAndANewerEpochTakesTheFireOver() {
        Holder a = claimFresh();
        String first = start(a, "f");
        Holder b = takeOver(a);
        assertThat(ledger().finish(a.job(), a.epoch(), a.owner(), first, true, null))
                .isEqualTo(Finished.STALE);
        assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
        assertThat(start(b, "f")).isNotEqualTo(first);
    }

    @Test
    void finish_foreignOwner_staleAndNothingCompleted() {
        Holder a = claimFresh();
        String runId = start(a, "f");
        assertThat(ledger().finish(a.job(), a.epoch(), "intruder", runId, true, null))
                .isEqualTo(Finished.STALE);
        assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
    }

    @Test
    void finish_runOfAnotherEpoch_completesNothing() {
        Holder a = claimFresh();
        String first = start(a, "f");
        Holder b = takeOver(a);
        ledger().finish(b.job(), b.epoch(), b.owner(), first, true, null);
        assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
    }

    @Test
    void finish_afterComplete_completedEarlierEvenUnderAnOlderEpoch() throws SQLException {
        Holder a = claimFresh();
        String runId = start(a, "f");
        complete(a, runId);
        Holder b = takeOver(a);
        assertThat(ledger().finish(a.job(), a.epoch(), a.owner(), runId, false, "late"))
                .isEqualTo(Finished.ALREADY_DONE);
        assertThat(ledger().startRun(b.job(), "f", b.epoch(), b.owner()))
                .isEqualTo(new FireStart.AlreadyDone(runId, a.owner(), a.epoch()));
    }

    @Test
    void complete_currentEpochCommitted_fireDoneAndFinishKeepsIt() throws SQLException {
        Holder a = claimFresh();
        String runId = start(a, "f");
        complete(a, runId);
        assertThat(ledger().completedRun(a.job(), "f"))
                .contains(new FireStart.AlreadyDone(runId, a.owner(), a.epoch()));
        assertThat(ledger().finish(a.job(), a.epoch(), a.owner(), runId, false, "after"))
                .isEqualTo(Finished.ALREADY_DONE);
        assertThat(ledger().completedRun(a.job(), "f")).isPresent();
    }

    @Test
    void complete_olderEpochOrForeignOwner_refusedAndCompletesNothing() {
        Holder a = claimFresh();
        String runId = start(a, "f");
        assertRefused(a, () -> complete(as(a, "intruder"), runId));
        Holder b = takeOver(a);
        assertRefused(a, () -> complete(a, runId));
        assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
        assertThat(start(b, "f")).isNotEqualTo(runId);
    }

    @Test
    void complete_runOfAnotherEpoch_refusedAndCompletesNothing() {
        Holder a = claimFresh();
        String first = start(a, "f");
        Holder b = takeOver(a);
        assertThatThrownBy(() -> complete(b, first))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(first);
        assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
    }

    @Test
    void complete_unknownRun_refused() {
        Holder a = claimFresh();
        String unknown = UUID.randomUUID().toString();
        assertThatThrownBy(() -> complete(a, unknown))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(unknown);
    }

    /** Where {@link #transactional()}: undone with the rollback; otherwise it counted at once. */
    @Test
    void complete_rolledBack_undoneExactlyWhereTheLedgerIsTransactional() throws SQLException {
        Holder a = claimFresh();
        String runId = start(a, "f");
        inTransaction(false, c -> ledger().complete(c, a.job(), a.epoch(), a.owner(), runId));
        if (transactional()) {
            assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
            assertThat(ledger().finish(a.job(), a.epoch(), a.owner(), runId, true, null))
                    .isEqualTo(Finished.RECORDED);
        } else {
            assertThat(ledger().completedRun(a.job(), "f"))
                    .contains(new FireStart.AlreadyDone(runId, a.owner(), a.epoch()));
            assertThat(ledger().finish(a.job(), a.epoch(), a.owner(), runId, true, null))
                    .isEqualTo(Finished.ALREADY_DONE);
        }
    }

    /**
     * A holder whose work called {@link RunLedger#complete} finishes a success as a failure that names the rolled-back
     * completion: where the ledger is transactional, the completion rolled back with its transaction leaves the run
     * RUNNING, so the run is recorded FAILED and a newer epoch takes the fire over; otherwise it counted at once.
     */
    @Test
    void finish_failedAfterTheCompletionRolledBack_recordedFailedAndTheFireRunsAgain() throws SQLException {
        Holder a = claimFresh();
        String runId = start(a, "f");
        inTransaction(false, c -> ledger().complete(c, a.job(), a.epoch(), a.owner(), runId));
        Finished f = ledger().finish(a.job(), a.epoch(), a.owner(), runId, false, "its completion was rolled back");
        if (!transactional()) {
            assertThat(f).isEqualTo(Finished.ALREADY_DONE);
            return;
        }
        assertThat(f).isEqualTo(Finished.RECORDED);
        assertThat(ledger().completedRun(a.job(), "f")).isEmpty();
        assertThat(start(takeOver(a), "f")).isNotEqualTo(runId);
    }

    /**
     * A finish that meets the run's completion in a transaction still open waits for that transaction: after its commit
     * the run is {@link Finished#ALREADY_DONE}, whatever the finish was asked to record.
     */
    @Test
    void finish_whileTheCompletionsTransactionIsOpen_completedEarlierOnceItCommits() throws Exception {
        Holder a = claimFresh();
        String runId = start(a, "f");
        Connection c = openTransaction();
        java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors.newSingleThreadExecutor();
        java.util.concurrent.Future<Finished> finished;
        try {
            ledger().complete(c, a.job(), a.epoch(), a.owner(), runId);
            finished = thread.submit(() ->
                    ledger().finish(a.job(), a.epoch(), a.owner(), runId, false, "its completion was rolled back"));
            Thread.sleep(200); // the finish meets the completion's open transaction (either order gives one answer)
            if (c != null) {
                c.commit();
            }
        } finally {
            if (c != null) {
                c.close();
            }
        }
        try {
            assertThat(finished.get(Timing.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS))
                    .isEqualTo(Finished.ALREADY_DONE);
        } finally {
            thread.shutdownNow();
        }
        assertThat(ledger().completedRun(a.job(), "f"))
                .contains(new FireStart.AlreadyDone(runId, a.owner(), a.epoch()));
    }

    /**
     * The sweeper recorded the fire MISSED after the run's lease ended, and the holder comes back: its finish (and
     * release, and abandon) is stale and its completion refused, even though nobody claimed the job since; the fire stays
     * MISSED.
     */
    @Test
    void finishAbandonAndComplete_afterTheFireWasRecordedMissed_staleAndTheFireStaysMissed() throws SQLException {
        Holder a = claimFresh();
        String runId = start(a, "f");
        expire(a.job());
        if (!recordMissed(a.job(), "f")) {
            return; // this ledger records no MISSED fires
        }
        assertThat(ledger().finish(a.job(), a.epoch(), a.owner(), runId, true, null))
                .as("finish")
                .isEqualTo(Finished.STALE);
        if (ledger().claimsAndStarts()) {
            assertThat(ledger().finishAndRelease(a.job(), a.epoch(), a.owner(), runId, true, null))
                    .as("finishAndRelease")
                    .isEqualTo(Finished.STALE);
        }
        assertThat(ledger().abandon(a.job(), a.epoch(), a.owner(), runId, "shutdown: contract"))
                .as("abandon")
                .isEqualTo(Finished.STALE);
        assertRefused(a, () -> complete(a, runId));
        assertThat(ledger().completedRun(a.job(), "f"))
                .as("the fire's record")
                .hasValueSatisfying(d -> assertThat(d.missed()).isTrue());
    }

    @Test
    void fence_currentHolder_passes() throws SQLException {
        Holder a = claimFresh();
        inTransaction(true, c -> ledger().fence(c, a.job(), a.epoch(), a.owner()));
        start(a, "f"); // the fence changed nothing
    }

    @Test
    void fence_olderEpochForeignOwnerOrExpiredLease_refused() {
        Holder a = claimFresh();
        Holder b = takeOver(a);
        assertRefused(a, () -> inTransaction(false, c -> ledger().fence(c, a.job(), a.epoch(), a.owner())));
        assertRefused(b, () -> inTransaction(false, c -> ledger().fence(c, b.job(), b.epoch(), "intruder")));
        expire(b.job());
        assertRefused(b, () -> inTransaction(false, c -> ledger().fence(c, b.job(), b.epoch(), b.owner())));
    }

    /**
     * The one-step path ({@link RunLedger#claimsAndStarts()}): claim + start in one step, outcome + release in another.
     * A ledger without it must say so by throwing {@link UnsupportedOperationException}.
     */
    @Test
    void claimAndStart_startsHoldsThenReportsTheDoneFire_orIsRefusedWhereNotSupported() throws SQLException {
        String job = freshJobKey();
        if (!ledger().claimsAndStarts()) {
            assertThatThrownBy(() -> ledger().claimAndStart(job, "f", "a", java.time.Duration.ofSeconds(30)))
                    .isInstanceOf(UnsupportedOperationException.class);
            assertThatThrownBy(() -> ledger().finishAndRelease(job, 1, "a", "run", true, null))
                    .isInstanceOf(UnsupportedOperationException.class);
            return;
        }
        RunLedger.FireClaim first = ledger().claimAndStart(job, "f", "a", java.time.Duration.ofSeconds(30));
        assertThat(first).isInstanceOf(RunLedger.FireClaim.Started.class);
        RunLedger.FireClaim.Started a = (RunLedger.FireClaim.Started) first;
        assertThat(ledger().claimAndStart(job, "g", "b", java.time.Duration.ofSeconds(30)))
                .isInstanceOfSatisfying(
                        RunLedger.FireClaim.Held.class,
                        h -> assertThat(h.owner()).isEqualTo("a"));
        Holder holder = new Holder(job, "a", a.epoch());
        complete(holder, a.runId());
        assertThat(ledger().finishAndRelease(job, a.epoch(), "a", a.runId(), true, null))
                .isEqualTo(Finished.ALREADY_DONE);
        assertThat(ledger().claimAndStart(job, "f", "b", java.time.Duration.ofSeconds(30)))
                .isEqualTo(new FireStart.AlreadyDone(a.runId(), "a", a.epoch()));
        RunLedger.FireClaim g = ledger().claimAndStart(job, "g", "b", java.time.Duration.ofSeconds(30));
        assertThat(g).as("the release let another owner in").isInstanceOf(RunLedger.FireClaim.Started.class);
        assertThat(((RunLedger.FireClaim.Started) g).epoch()).isGreaterThan(a.epoch());
    }
}
