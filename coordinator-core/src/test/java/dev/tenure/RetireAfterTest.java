package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.memory.InMemoryRunLedger;
import dev.tenure.memory.InMemoryScheduleLedger;
import dev.tenure.metrics.RunMetrics;
import dev.tenure.spi.ScheduleLedger;
import dev.tenure.spi.ScheduleLedger.ScheduleRow;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A schedule that no live process registers is retired about {@code retireAfter} after its last mark, also when that
 * is shorter than the leader's 30 s chores: the leader retires schedules every mark period (a quarter of
 * {@code retireAfter}, at most a minute).
 */
class RetireAfterTest {

    /** Always the leader. */
    private static final class Leading implements LeaderElection {
        @Override
        public String name() {
            return "tenure-sweeper:app";
        }

        @Override
        public String owner() {
            return "node";
        }

        @Override
        public void start() {}

        @Override
        public void stop() {}

        @Override
        public boolean isLeader() {
            return true;
        }

        @Override
        public OptionalLong epoch() {
            return OptionalLong.of(1);
        }

        @Override
        public Optional<Holder> currentLeader() {
            return Optional.empty();
        }

        @Override
        public void fence(Connection connection) {}
    }

    @Test
    void aScheduleNobodyRegisters_isRetiredSoonAfterRetireAfter_notAtTheNext30sChores() {
        InMemoryRunLedger runs = new InMemoryRunLedger(new InMemoryLeaseStore(), Clock.systemUTC());
        InMemoryScheduleLedger ledger = new InMemoryScheduleLedger(runs);
        ledger.register(new ScheduleRow(
                "gone",
                "app",
                "fixed-rate",
                "PT1H",
                MissedFirePolicy.catchUp(),
                "catch-up",
                "scheduled",
                "old-version"));
        try (Sweeper sweeper = new Sweeper(
                ledger,
                Tenure.builder()
                        .sweepInterval(Duration.ofMillis(50))
                        .retireSchedulesAfter(Duration.ofSeconds(1))
                        .application("app")
                        .nodeName("node")
                        .settings(),
                RunMetrics.none(),
                listener -> new Leading())) {
            sweeper.register(ScheduledJob.of("here", Schedule.fixedRate(Duration.ofHours(1)), fire -> {}), null);

            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> ledger.stateOf("gone").orElseThrow().equals(ScheduleLedger.RETIRED));
            assertThat(ledger.stateOf("here")).as("the job this process has").contains(ScheduleLedger.ACTIVE);
        }
    }

    @Test
    void registerAll_registersEachJobAsRegisterWould_inOneCallToTheLedger() {
        InMemoryRunLedger runs = new InMemoryRunLedger(new InMemoryLeaseStore(), Clock.systemUTC());
        java.util.List<java.util.List<ScheduleRow>> calls = new java.util.ArrayList<>();
        InMemoryScheduleLedger ledger = new InMemoryScheduleLedger(runs);
        ScheduleLedger recorded = (ScheduleLedger) java.lang.reflect.Proxy.newProxyInstance(
                ScheduleLedger.class.getClassLoader(), new Class<?>[] {ScheduleLedger.class}, (proxy, method, args) -> {
                    if (method.getName().equals("registerAll")) {
                        @SuppressWarnings("unchecked")
                        java.util.List<ScheduleRow> rows = (java.util.List<ScheduleRow>) args[0];
                        calls.add(rows);
                    }
                    try {
                        return method.invoke(ledger, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        ledger.register(new ScheduleRow(
                "b", "app", "fixed-rate", "PT2H", MissedFirePolicy.catchUp(), "catch-up", "scheduled", "old-version"));
        try (Sweeper sweeper = new Sweeper(
                recorded,
                Tenure.builder().application("app").nodeName("node").settings(),
                RunMetrics.none(),
                listener -> new Leading())) {
            java.util.List<ScheduleLedger.Registered> answers = sweeper.registerAll(java.util.List.of(
                    ScheduledJob.of("a", Schedule.fixedRate(Duration.ofHours(1)), fire -> {}),
                    ScheduledJob.of("b", Schedule.fixedRate(Duration.ofHours(1)), fire -> {})));
            assertThat(calls).hasSize(1);
            assertThat(calls.get(0)).extracting(ScheduleRow::jobKey).containsExactly("a", "b");
            assertThat(answers.get(0).created()).isTrue();
            assertThat(answers.get(1).version()).isEqualTo(2);
            assertThat(answers.get(1).replaced()).map(ScheduleRow::expression).contains("PT2H");
            assertThat(sweeper.jobs()).extracting(ScheduledJob::jobKey).containsExactlyInAnyOrder("a", "b");
            assertThat(ledger.stateOf("a")).contains(ScheduleLedger.ACTIVE);
        }
    }
}
