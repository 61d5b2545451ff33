package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.JobContext;
import dev.tenure.RunOutcome;
import dev.tenure.Tenure;
import dev.tenure.boot.autoconfigure.TenureSchedulingAutoConfiguration;
import dev.tenure.integration.ClaimedRun;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * {@code @Coordinated} in a Boot context on the in-memory Tenure (no servers): one run per slot, the run bound to the
 * thread, the annotation's TTL, failures, and every rule checked at start-up naming the method.
 */
class CoordinatedSchedulingTest {

    /**
     * Scheduled hourly with a first fire an hour away: the tests call it themselves, in the current hour's slot. The
     * bean is a proxy, so tests read and set its state through methods.
     */
    public static class Settlement {
        private final List<JobContext> runs = new CopyOnWriteArrayList<>();
        private volatile boolean fail;

        public List<JobContext> runs() {
            return runs;
        }

        public void failing(boolean fail) {
            this.fail = fail;
        }

        @Scheduled(fixedRate = 3_600_000, initialDelay = 3_600_000)
        @Coordinated(value = "settlement", ttl = "7s")
        public void settle() {
            runs.add(JobContext.current());
            if (fail) {
                throw new IllegalStateException("ledger unavailable");
            }
        }
    }

    /** Records every outcome. */
    public static class Outcomes implements CoordinatedRunListener {
        final List<RunOutcome<?>> seen = new CopyOnWriteArrayList<>();

        @Override
        public void finished(RunOutcome<?> outcome) {
            seen.add(outcome);
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TenureSchedulingAutoConfiguration.class))
            .withBean(Tenure.class, Tenure::inMemory)
            .withBean(Outcomes.class);

    @Test
    void aMethodCalledTwiceInOneSlot_runsOnce_withItsRunBoundAndItsTtl() {
        runner.withBean(Settlement.class).run(context -> {
            Settlement job = context.getBean(Settlement.class);
            job.settle();
            job.settle();
            assertThat(job.runs()).hasSize(1);
            JobContext run = job.runs().get(0);
            assertThat(run.jobKey()).isEqualTo("settlement");
            long hour = Duration.ofHours(1).toMillis();
            assertThat(run.fireKey())
                    .isEqualTo(java.time.Instant.ofEpochMilli(System.currentTimeMillis() / hour * hour)
                            .toString());
            assertThat(((ClaimedRun) run).lease().remaining())
                    .isLessThanOrEqualTo(Duration.ofSeconds(7)); // unscaled: a TTL
            assertThat(context.getBean(Outcomes.class).seen)
                    .extracting(RunOutcome::status)
                    .containsExactly(RunOutcome.Status.EXECUTED, RunOutcome.Status.SKIPPED_ALREADY_DONE);
            assertThat(JobContext.find()).isEmpty();
        });
    }

    @Test
    void aMethodThatThrows_throwsToTheScheduler_andItsFireRunsAgainNextTime() {
        runner.withBean(Settlement.class).run(context -> {
            Settlement job = context.getBean(Settlement.class);
            job.failing(true);
            assertThatThrownBy(job::settle)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("ledger unavailable");
            job.failing(false);
            job.settle();
            assertThat(job.runs()).hasSize(2);
            assertThat(context.getBean(Outcomes.class).seen)
                    .extracting(RunOutcome::status)
                    .containsExactly(RunOutcome.Status.FAILED, RunOutcome.Status.EXECUTED);
        });
    }

    @Test
    void schedulingDisabled_leavesTheMethodUncoordinated() {
        runner.withBean(Settlement.class)
                .withPropertyValues("tenure.scheduling.enabled=false")
                .run(context -> {
                    assertThat(context).doesNotHaveBean(CoordinatedAdvisor.class);
                    Settlement job = context.getBean(Settlement.class);
                    assertThatThrownBy(job::settle)
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("no coordinated run on this thread");
                });
    }

    @Test
    void withoutATenure_theSchedulingSupportBacksOff() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TenureSchedulingAutoConfiguration.class))
                .run(context -> assertThat(context)
                        .doesNotHaveBean(CoordinatedAdvisor.class)
                        .doesNotHaveBean(CoordinatedMethodsCheck.class));
    }

    @Test
    void anAdvisorOfTheApplication_replacesTenures() {
        runner.withBean(
                        "custom",
                        CoordinatedAdvisor.class,
                        () -> new CoordinatedAdvisor(
                                s -> s,
                                dev.tenure.LeaseOptions::ofDefaults,
                                () -> null,
                                List::of,
                                java.time.Clock.systemUTC(),
                                () -> 0))
                .run(context ->
                        assertThat(context).getBeans(CoordinatedAdvisor.class).containsOnlyKeys("custom"));
    }

    public static class FixedDelay {
        @Scheduled(fixedDelay = 1000)
        @Coordinated
        public void run() {}
    }

    public static class ReturnsAValue {
        @Scheduled(cron = "* * * * * *")
        @Coordinated
        public int run() {
            return 1;
        }
    }

    public static class FinalMethod {
        @Scheduled(cron = "* * * * * *")
        @Coordinated
        public final void run() {}
    }

    public static class BadTtl {
        @Scheduled(cron = "* * * * * *")
        @Coordinated(ttl = "soon")
        public void run() {}
    }

    public static class BadKey {
        @Scheduled(cron = "* * * * * *")
        @Coordinated("two words")
        public void run() {}
    }

    public static class NotScheduled {
        @Coordinated
        public void run() {}
    }

    @ParameterizedTest
    @ValueSource(
            classes = {
                FixedDelay.class,
                ReturnsAValue.class,
                FinalMethod.class,
                BadTtl.class,
                BadKey.class,
                NotScheduled.class
            })
    void aMethodThatCannotBeCoordinated_stopsTheStartUp_namingIt(Class<?> bean) {
        runner.withBean(bean).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(TenureConfigurationException.class)
                    .hasMessageContaining(bean.getSimpleName() + ".run");
        });
    }
}
