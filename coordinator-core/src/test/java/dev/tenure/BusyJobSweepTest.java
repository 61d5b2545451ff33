package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.memory.InMemoryRunLedger;
import dev.tenure.memory.InMemoryScheduleLedger;
import dev.tenure.metrics.RunMetrics;
import dev.tenure.spi.ScheduleLedger;
import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.ScheduleRow;
import dev.tenure.spi.ScheduleLedger.Settled;
import dev.tenure.spi.ScheduleLedger.SweepMark;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A sweep that finds the job's row busy (a claim holds it at that moment, so the ledger records none of its MISSED
 * fires) hands out none of its catch-ups either: the plan is carried out whole, by a later sweep, or not at all. Found
 * by MissedFiresBrowserIT on a busy machine: the first sweep after an outage caught up the newest 5 overdue fires while
 * its MISSED records were refused, so the next sweep saw 5 other overdue fires as the newest and caught them up too (10
 * catch-ups under a limit of 5).
 */
class BusyJobSweepTest {

    private static final Instant T0 = Instant.parse("2026-12-07T23:00:00Z");
    private static final String JOB = "billing";

    @Test
    void sweep_whileTheJobRowIsBusy_handsOutNoCatchUp_theNextSweepCatchesUpTheNewestAndRecordsTheRestMissed() {
        SetClock clock = new SetClock(T0);
        InMemoryRunLedger runs = new InMemoryRunLedger(new InMemoryLeaseStore(), clock);
        InMemoryScheduleLedger ledger = new InMemoryScheduleLedger(runs);
        ledger.register(new ScheduleRow(
                JOB,
                "app",
                "fixed-rate",
                "PT1S",
                MissedFirePolicy.catchUp().withMaxCatchUps(2).withGrace(Duration.ofSeconds(1)),
                "catch-up (newest 2)",
                "scheduled",
                "n1"));
        AtomicBoolean busy = new AtomicBoolean(true);
        ScheduleLedger ledgerWithABusyRow = (ScheduleLedger) Proxy.newProxyInstance(
                ScheduleLedger.class.getClassLoader(), new Class<?>[] {ScheduleLedger.class}, (proxy, method, args) -> {
                    if (method.getName().equals("settle") && busy.get()) {
                        // as the Postgres ledger answers when a claim holds the job's row: nothing recorded
                        @SuppressWarnings("unchecked")
                        Function<Settled, List<SweepMark>> marks = (Function<Settled, List<SweepMark>>) args[2];
                        Settled s = new Settled(Set.of(), Set.of(JOB));
                        ledger.swept(marks.apply(s), (String) args[3]);
                        return s;
                    }
                    try {
                        return method.invoke(ledger, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        Sweeper sweeper = new Sweeper(
                ledgerWithABusyRow,
                Tenure.builder()
                        .clock(clock)
                        .sweepInterval(Duration.ofMillis(300))
                        .application("app")
                        .nodeName("n2")
                        .settings(),
                RunMetrics.none(),
                listener -> {
                    throw new AssertionError("the test sweeps by hand");
                });
        try {
            clock.set(T0.plusMillis(10_500)); // fires 01 .. 09 overdue (grace 1 s)
            SweepRound.Result first = sweeper.sweep();
            assertThat(first.overdue())
                    .as("the first sweep saw the overdue fires")
                    .isPositive();
            assertThat(first.catchUps())
                    .as("catch-ups handed out by the sweep that recorded nothing")
                    .isEmpty();
            assertThat(first.missed()).isEmpty();

            busy.set(false);
            SweepRound.Result second = sweeper.sweep();
            assertThat(second.catchUps().stream().map(DueFire::fireKey))
                    .as("the newest 2 overdue fires")
                    .containsExactly(
                            T0.plusSeconds(8).toString(), T0.plusSeconds(9).toString());
            assertThat(runs.statusOf(JOB, T0.plusSeconds(7).toString())).contains("MISSED");
            assertThat(runs.statusOf(JOB, T0.plusSeconds(1).toString())).contains("MISSED");
            assertThat(runs.statusOf(JOB, T0.plusSeconds(8).toString())).isEmpty();
        } finally {
            sweeper.close();
        }
    }
}
