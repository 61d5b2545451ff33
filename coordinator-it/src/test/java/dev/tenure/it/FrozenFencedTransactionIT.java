package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A holder frozen (SIGSTOP) inside its open fenced transaction, for much longer than its lease TTL, blocks its job for
 * about one TTL, not for its freeze: once the lease has expired, a claim held up by that idle fenced transaction for the
 * claim lock timeout ends it, and its row lock goes with it. Another process claims the job then; the frozen holder's
 * writes never commit.
 */
class FrozenFencedTransactionIT {

    private static final String JOB = "frozen-in-transaction";
    private static final Duration TTL = Duration.ofSeconds(3);
    /** How long the holder stays idle in its transaction when nobody freezes it: less than the TTL. */
    private static final Duration HOLD = Duration.ofSeconds(2);

    private static final Duration FREEZE = Duration.ofSeconds(15);
    /** How long a claim waits for a fenced transaction's row lock before it ends an idle one (the ledger's default). */
    private static final Duration CLAIM_LOCK_TIMEOUT = Duration.ofSeconds(2);

    static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(FrozenFencedTransactionIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void holderFrozenInItsFencedTransaction_anotherClaimsAboutOneTtlLater_andTheFrozenWritesNeverCommit()
            throws Exception {
        Duration renewal = LeaseOptions.ofTtl(TTL).renewEvery();
        try (JvmProcess holder = JvmProcess.start(
                        List.of("-Xmx128m"),
                        FrozenHolderWorker.class.getName(),
                        List.of(
                                servers.valkey.address(),
                                servers.db.jdbcUrl(),
                                servers.db.username(),
                                servers.passwordArg(),
                                JOB,
                                Long.toString(TTL.toMillis()),
                                Long.toString(HOLD.toMillis())));
                Tenure claimant = Workers.tenure(
                        "VALKEY_WITH_DATABASE_FALLBACK",
                        servers.valkey.address(),
                        servers.db.dataSource(),
                        TTL,
                        Duration.ofMillis(300),
                        Duration.ofSeconds(2))) {
            holder.awaitStdoutLine(l -> l.startsWith("FENCED "), Timing.scaled(Duration.ofSeconds(60)));
            holder.pause();
            long frozenAt = System.nanoTime();
            boolean resumed = false;
            RunOutcome<Void> claimed = null;
            long deadline = frozenAt
                    + FREEZE.plus(Timing.scaled(Duration.ofSeconds(20))).toNanos();
            while (System.nanoTime() < deadline) {
                if (!resumed && System.nanoTime() - frozenAt >= FREEZE.toNanos()) {
                    holder.resume();
                    resumed = true;
                }
                RunOutcome<Void> o = claimant.coordinator().run(JOB, "after-freeze", RunPolicy.skipFire(), ctx -> {
                    FencedWrite.insert(servers.db.dataSource(), ctx, "after-freeze");
                    return null;
                });
                if (o.executed()) {
                    claimed = o;
                    break;
                }
                Thread.sleep(50);
            }
            Duration waited = Duration.ofNanos(System.nanoTime() - frozenAt);
            if (!resumed) {
                Thread.sleep(Math.max(0, FREEZE.minus(waited).toMillis())); // the freeze lasts its full length
                holder.resume();
            }
            String outcome =
                    holder.awaitStdoutLine(l -> l.startsWith("OUTCOME "), Timing.scaled(Duration.ofSeconds(30)));
            System.out.printf(
                    "holder frozen for %d ms inside its fenced transaction (TTL %d ms, renewal %d ms, claim "
                            + "lock timeout %d ms): the other process claimed the job %d ms after the freeze began; the holder, "
                            + "resumed, said: %s%n",
                    FREEZE.toMillis(),
                    TTL.toMillis(),
                    renewal.toMillis(),
                    CLAIM_LOCK_TIMEOUT.toMillis(),
                    waited.toMillis(),
                    outcome);

            assertThat(claimed).as("another process claimed the job").isNotNull();
            assertThat(waited)
                    .as("from the freeze to the other process's claim")
                    .isLessThanOrEqualTo(
                            TTL.plus(renewal).plus(CLAIM_LOCK_TIMEOUT).plus(Timing.scaled(Duration.ofMillis(1500))));
            assertThat(outcome).as("the frozen holder's run").doesNotContain("EXECUTED");
            assertThat(servers.count("SELECT count(*) FROM business_ledger WHERE fire_key = 'held'"))
                    .as("the frozen holder's business write")
                    .isZero();
            assertThat(servers.one(
                            "SELECT status FROM tenure.job_runs WHERE job_key = '" + JOB + "' AND fire_key = 'held'"))
                    .as("the frozen holder's run row")
                    .isNotEqualTo("COMPLETED");
            assertThat(servers.count("SELECT count(*) FROM business_ledger WHERE fire_key = 'after-freeze'"))
                    .as("the claimant's business write")
                    .isEqualTo(1);
        }
    }
}
