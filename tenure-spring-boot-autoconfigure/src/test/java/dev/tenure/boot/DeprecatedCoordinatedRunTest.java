package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.JobContext;
import dev.tenure.RunOutcome;
import dev.tenure.Tenure;
import dev.tenure.boot.autoconfigure.TenureSchedulingAutoConfiguration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Issue 35, item 12: code written against the removed {@code CoordinatedRun} (the quick start before
 * {@code JobContext.current()}) compiles and works again, for one release, in a Boot context on the in-memory Tenure;
 * the class says it goes ({@code @Deprecated(forRemoval = true)}) and what replaces it.
 */
@SuppressWarnings("removal") // the point: the old call, as users wrote it
class DeprecatedCoordinatedRunTest {

    /** A {@code @Coordinated} method as the 0.1.0-SNAPSHOT docs of early December showed it. */
    public static class OldStyleSettlement {
        private final List<JobContext> runs = new CopyOnWriteArrayList<>();
        private final List<Optional<JobContext>> found = new CopyOnWriteArrayList<>();
        private final List<JobContext> viaJobContext = new CopyOnWriteArrayList<>();

        @Scheduled(fixedRate = 3_600_000, initialDelay = 3_600_000)
        @Coordinated(value = "old-settlement", ttl = "7s")
        public void settle() {
            JobContext run = CoordinatedRun.current(); // this fire's epoch, fence and completion
            runs.add(run);
            found.add(CoordinatedRun.find());
            viaJobContext.add(JobContext.current());
        }

        public List<JobContext> runs() {
            return runs;
        }

        public List<Optional<JobContext>> found() {
            return found;
        }

        public List<JobContext> viaJobContext() {
            return viaJobContext;
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

    @Test
    void oldCode_callingCoordinatedRunCurrent_getsTheFiresRun_asJobContextCurrentDoes() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TenureSchedulingAutoConfiguration.class))
                .withBean(Tenure.class, Tenure::inMemory)
                .withBean(Outcomes.class)
                .withBean(OldStyleSettlement.class)
                .run(context -> {
                    OldStyleSettlement job = context.getBean(OldStyleSettlement.class);
                    job.settle();
                    assertThat(job.runs()).hasSize(1);
                    JobContext run = job.runs().get(0);
                    assertThat(run.jobKey()).isEqualTo("old-settlement");
                    assertThat(run).isSameAs(job.viaJobContext().get(0));
                    assertThat(job.found()).containsExactly(Optional.of(run));
                    assertThat(context.getBean(Outcomes.class).seen)
                            .extracting(RunOutcome::status)
                            .containsExactly(RunOutcome.Status.EXECUTED);
                });
        assertThat(CoordinatedRun.find()).as("outside the method").isEmpty();
        assertThatThrownBy(CoordinatedRun::current)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no coordinated run on this thread")
                .hasMessageContaining("JobContext.current()");
    }

    @Test
    void coordinatedRun_isDeprecatedForRemoval_sinceTheFirstRelease() throws Exception {
        for (java.lang.reflect.AnnotatedElement e : List.of(
                CoordinatedRun.class,
                CoordinatedRun.class.getMethod("current"),
                CoordinatedRun.class.getMethod("find"))) {
            Deprecated d = e.getAnnotation(Deprecated.class);
            assertThat(d).as("%s", e).isNotNull();
            assertThat(d.forRemoval()).as("%s", e).isTrue();
            assertThat(d.since()).as("%s", e).isEqualTo("0.1.0");
        }
    }
}
