package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.memory.InMemoryRunLedger;
import dev.tenure.memory.InMemoryScheduleLedger;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.RunLedger;
import dev.tenure.spi.ScheduleLedger;
import dev.tenure.testkit.RunLedgerContract;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The RunLedger contract on the shipped {@link InMemoryRunLedger}, whose epochs are the fencing tokens of an
 * {@link InMemoryLeaseStore}. Not transactional: a completion counts at once, whatever happens to the transaction. A
 * unit test: no server involved.
 */
class InMemoryRunLedgerContractTest extends RunLedgerContract {

    private static final InMemoryLeaseStore LEASES = new InMemoryLeaseStore();
    private static final InMemoryRunLedger LEDGER = new InMemoryRunLedger(LEASES);

    @Override
    protected RunLedger ledger() {
        return LEDGER;
    }

    @Override
    protected long claim(String jobKey, String owner) {
        AcquireResult r =
                LEASES.tryAcquire(jobKey, owner, Duration.ofSeconds(30), true).join();
        if (r instanceof AcquireResult.Acquired a) {
            return a.fencingToken().orElseThrow();
        }
        throw new AssertionError("job " + jobKey + " is held: " + r);
    }

    @Override
    protected void expire(String jobKey) {
        LEASES.expire(jobKey);
    }

    /** The in-memory ledger takes no connection. */
    @Override
    protected Connection openTransaction() {
        return null;
    }

    @Override
    protected boolean transactional() {
        return false;
    }

    /** As its sweeper does, through the in-memory {@link dev.tenure.spi.ScheduleLedger} over this ledger. */
    @Override
    protected boolean recordMissed(String jobKey, String fireKey) {
        ScheduleLedger.DueFire fire = new ScheduleLedger.DueFire(jobKey, fireKey, Instant.now());
        ScheduleLedger.Settled settled = new InMemoryScheduleLedger(LEDGER)
                .settle(
                        List.of(new ScheduleLedger.Missed(fire, "contract: missed")),
                        List.of(),
                        s -> List.of(),
                        "sweeper");
        assertThat(settled.recorded()).as("recorded MISSED").containsExactly(fire);
        return true;
    }

    /** Beyond the SPI: the statuses it shows follow the database's (older RUNNING runs of the job are ABANDONED). */
    @Test
    void startRun_newerEpoch_olderRunningRunsOfTheJobAbandoned() {
        long first = claim("abandon", "a");
        LEDGER.startRun("abandon", "f1", first, "a");
        LEASES.expire("abandon");
        long second = claim("abandon", "b");
        LEDGER.startRun("abandon", "f2", second, "b");
        assertThat(LEDGER.statusOf("abandon", "f1")).contains("ABANDONED");
        assertThat(LEDGER.statusOf("abandon", "f2")).contains("RUNNING");
    }
}
