package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tenure.integration.RunClaim;
import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.memory.InMemoryRunLedger;
import dev.tenure.spi.RunLedger;
import java.sql.Connection;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The outcome of a run that ran cannot be recorded (the ledger's finish fails): the fault is thrown, and the work's own
 * result and exception are kept, in the thrown fault and in the run's outcome.
 */
class FinishFaultTest {

    private final InMemoryLeaseStore store = new InMemoryLeaseStore();
    private final UnrecordedLedger ledger = new UnrecordedLedger(new InMemoryRunLedger(store));
    private final Leases leases = Leases.of(store);
    private final JobCoordinator coordinator =
            new JobCoordinator(Tenure.builder().settings(), leases, null, ledger, dev.tenure.metrics.RunMetrics.none());

    @AfterEach
    void close() {
        leases.close();
    }

    @Test
    void finishFails_afterTheWorkThrew_theFaultCarriesTheWorksException_andTheOutcomeKeepsIt() {
        IllegalStateException own = new IllegalStateException("settlement file missing");
        RunClaim.Claimed claim = (RunClaim.Claimed) coordinator.begin("settle", "f1", RunPolicy.skipFire());
        ActiveRun run = (ActiveRun) claim.run();
        LeaseStoreUnavailableException fault =
                catchThrowableOfType(LeaseStoreUnavailableException.class, () -> run.finish(null, own));
        assertThat(fault).hasMessageContaining("outcome lost");
        assertThat(fault.getSuppressed()).as("the work's own exception").containsExactly(own);
        RunOutcome<Object> kept = run.finish(null, null);
        assertThat(kept.status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(kept.error()).as("the outcome keeps what the work threw").isSameAs(own);
        assertThat(run.isFinished()).isTrue();
    }

    @Test
    void finishFails_afterTheWorkSucceeded_theOutcomeKeepsTheResult_andNamesTheFault() {
        LeaseStoreUnavailableException fault = catchThrowableOfType(
                LeaseStoreUnavailableException.class,
                () -> coordinator.run("settle", "f2", RunPolicy.skipFire(), ctx -> 42));
        assertThat(fault).hasMessageContaining("outcome lost");
        assertThat(fault.getSuppressed()).isEmpty();
        RunClaim again = coordinator.begin("settle", "f3", RunPolicy.skipFire());
        assertThat(again).as("the leases were released all the same").isInstanceOf(RunClaim.Claimed.class);
        ActiveRun run = (ActiveRun) ((RunClaim.Claimed) again).run();
        catchThrowableOfType(LeaseStoreUnavailableException.class, () -> run.finish(7, null));
        RunOutcome<Integer> kept = run.finish(null, null);
        assertThat(kept.status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(kept.result()).as("the work's result").isEqualTo(7);
        assertThat(kept.error()).isInstanceOf(LeaseStoreUnavailableException.class);
    }

    /** A run ledger whose outcome statement fails, as a database that went away after the work would. */
    private record UnrecordedLedger(RunLedger target) implements RunLedger {

        @Override
        public Optional<FireStart.AlreadyDone> completedRun(String jobKey, String fireKey) {
            return target.completedRun(jobKey, fireKey);
        }

        @Override
        public FireStart startRun(String jobKey, String fireKey, long epoch, String owner) {
            return target.startRun(jobKey, fireKey, epoch, owner);
        }

        @Override
        public Finished finish(String jobKey, long epoch, String owner, String runId, boolean succeeded, String error) {
            throw new LeaseStoreUnavailableException("finish of '" + jobKey + "' failed: outcome lost", jobKey, null);
        }

        @Override
        public void fence(Connection connection, String jobKey, long epoch, String owner) {}

        @Override
        public void complete(Connection connection, String jobKey, long epoch, String owner, String runId) {}
    }
}
