package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link JobContext#current()}: the run on the thread that runs its work, the enclosing one after a nested run. */
class JobContextCurrentTest {

    @Test
    void current_insideRun_theRunsContext_andNothingOnceItEnded() {
        try (Tenure tenure = Tenure.inMemory()) {
            List<JobContext> seen = new ArrayList<>();
            RunOutcome<Void> o = tenure.coordinator().run("settle", "2026-12-04", RunPolicy.skipFire(), run -> {
                seen.add(run);
                seen.add(JobContext.current());
                seen.add(JobContext.find().orElseThrow());
                return null;
            });
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(seen).hasSize(3).allSatisfy(c -> assertThat(c).isSameAs(seen.get(0)));
            assertThat(JobContext.find()).isEmpty();
            assertThatThrownBy(JobContext::current)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no coordinated run on this thread");
        }
    }

    @Test
    void current_nestedRun_innerThenTheOuterAgain() {
        try (Tenure tenure = Tenure.inMemory()) {
            List<String> fires = new ArrayList<>();
            tenure.coordinator().run("outer", "o-1", RunPolicy.skipFire(), outer -> {
                fires.add(JobContext.current().fireKey());
                tenure.coordinator().run("inner", "i-1", RunPolicy.skipFire(), inner -> {
                    fires.add(JobContext.current().fireKey());
                    return null;
                });
                fires.add(JobContext.current().fireKey());
                return null;
            });
            assertThat(fires).containsExactly("o-1", "i-1", "o-1");
            assertThat(JobContext.find()).isEmpty();
        }
    }

    @Test
    void current_otherThread_none() throws Exception {
        try (Tenure tenure = Tenure.inMemory()) {
            List<Boolean> elsewhere = new ArrayList<>();
            tenure.coordinator().run("settle", "f", RunPolicy.skipFire(), run -> {
                Thread t = new Thread(() -> elsewhere.add(JobContext.find().isPresent()));
                t.start();
                t.join();
                return null;
            });
            assertThat(elsewhere).containsExactly(false);
        }
    }
}
