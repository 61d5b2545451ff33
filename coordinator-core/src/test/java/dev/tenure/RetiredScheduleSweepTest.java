package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.memory.InMemoryRunLedger;
import dev.tenure.memory.InMemoryScheduleLedger;
import dev.tenure.metrics.RunMetrics;
import dev.tenure.spi.ScheduleLedger.ScheduleRow;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A retired schedule is swept until its account reaches its retirement, also when the first sweep after the
 * retirement comes within the grace period of it (it walks only up to now minus the grace): the fires due just before
 * the retirement are accounted for at a later sweep, and then the schedule leaves the sweeps.
 */
class RetiredScheduleSweepTest {

    private static final Instant T0 = Instant.parse("2026-12-07T03:37:00Z");
    private static final Duration GRACE = Duration.ofSeconds(1);

    @Test
    void sweep_aFireDueWithinTheGraceBeforeTheRetirement_isRecordedMissed_thenTheScheduleLeavesTheSweeps() {
        SetClock clock = new SetClock(T0);
        InMemoryRunLedger runs = new InMemoryRunLedger(new InMemoryLeaseStore(), clock);
        InMemoryScheduleLedger ledger = new InMemoryScheduleLedger(runs);
        // registered by an instance of the application's old version; no live process has the job any more
        ledger.register(new ScheduleRow(
                "legacy",
                "app",
                "fixed-rate",
                "PT2S",
                MissedFirePolicy.catchUp().withGrace(GRACE),
                "catch-up",
                "scheduled",
                "v1"));
        Sweeper sweeper = new Sweeper(
                ledger,
                Tenure.builder()
                        .clock(clock)
                        .sweepInterval(Duration.ofMillis(300))
                        .retireSchedulesAfter(Duration.ofSeconds(6))
                        .application("app")
                        .nodeName("v2")
                        .settings(),
                RunMetrics.none(),
                listener -> {
                    throw new AssertionError("the test sweeps by hand");
                });
        try {
            clock.set(T0.plusMillis(9_500));
            sweeper.sweep(); // fires 02 .. 08: nobody can catch them up
            assertThat(runs.statusOf("legacy", T0.plusSeconds(8).toString())).contains("MISSED");

            clock.set(T0.plusMillis(10_500));
            assertThat(ledger.retireUnseen(Duration.ofSeconds(6), "v2")).containsExactly("legacy");
            clock.set(T0.plusMillis(10_800));
            sweeper.sweep(); // fire 10 is due before the retirement, but within its grace: not walked yet

            clock.set(T0.plusSeconds(20));
            sweeper.sweep();
            assertThat(runs.statusOf("legacy", T0.plusSeconds(10).toString()))
                    .as("the fire due before the retirement")
                    .contains("MISSED");
            assertThat(runs.statusOf("legacy", T0.plusSeconds(12).toString()))
                    .as("a fire due after the retirement")
                    .isEmpty();
            assertThat(ledger.due("app", 10).schedules())
                    .as("its account reached its retirement: it left the sweeps")
                    .isEmpty();
        } finally {
            sweeper.close();
        }
    }
}
