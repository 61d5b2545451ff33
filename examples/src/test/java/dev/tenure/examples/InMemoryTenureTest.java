package dev.tenure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.testkit.SettableTicker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** How users unit-test code built on Tenure without servers: {@link Tenure#inMemory()}, one process only. */
class InMemoryTenureTest {

    // tag::in-memory[]
    @Test
    void aFireRunsOnce_whenItIsTriggeredTwice() {
        try (Tenure tenure = Tenure.inMemory()) {   // no database, no Valkey: the threads of this JVM only
            AtomicInteger runs = new AtomicInteger();
            RunOutcome<Integer> first = tenure.coordinator().run("report", "2026-12-02", RunPolicy.skipFire(),
                    ctx -> runs.incrementAndGet());
            RunOutcome<Integer> again = tenure.coordinator().run("report", "2026-12-02", RunPolicy.skipFire(),
                    ctx -> runs.incrementAndGet());
            assertThat(first.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(again.status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
            assertThat(runs).hasValue(1);
        }
    }

    @Test
    void aLeaseThatIsNotRenewed_runsOut_withoutSleeping() {
        SettableTicker ticker = new SettableTicker();   // from tenure-testkit: time moves when the test says so
        try (Tenure tenure = Tenure.builder().inMemory().ticker(ticker).build()) {
            LeaseOptions tenSeconds = LeaseOptions.ofTtl(Duration.ofSeconds(10)).withRenewal(false);
            Lease lease = tenure.leases().tryAcquire("export", tenSeconds).orElseThrow();
            ticker.advance(Duration.ofSeconds(11));
            assertThat(lease.isValid()).isFalse();
            assertThat(tenure.leases().tryAcquire("export")).isPresent();
        }
    }
    // end::in-memory[]
}
