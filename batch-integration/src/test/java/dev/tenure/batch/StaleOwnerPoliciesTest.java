package dev.tenure.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.TenureException;
import org.junit.jupiter.api.Test;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;
import org.springframework.batch.core.step.skip.AlwaysSkipItemSkipPolicy;
import org.springframework.core.retry.RetryPolicy;

class StaleOwnerPoliciesTest {

    private static final RuntimeException FENCE =
            new RuntimeException("chunk failed", new TenureException("stale", "batch:x"));

    @Test
    void neverSkip_fenceFailureInCauseChain_isNotSkipped() throws Exception {
        var policy = TenureBatch.neverSkipFenceFailures(new AlwaysSkipItemSkipPolicy());
        assertThat(policy.shouldSkip(FENCE, 0)).isFalse();
        assertThat(policy.shouldSkip(new IllegalStateException("bad item"), 0)).isTrue();
    }

    @Test
    void neverRetry_fenceFailureInCauseChain_isNotRetried() {
        RetryPolicy policy = TenureBatch.neverRetryFenceFailures(RetryPolicy.withMaxRetries(3));
        assertThat(policy.shouldRetry(FENCE)).isFalse();
        assertThat(policy.shouldRetry(new IllegalStateException("transient"))).isTrue();
    }

    @Test
    void jobKey_nameWithWhitespace_isRejectedNamingTheRule() {
        assertThatThrownBy(() -> GuardedJobOperator.jobKey("nightly settlement"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whitespace");
        assertThat(GuardedJobOperator.jobKey("settlement")).isEqualTo("batch:settlement");
    }

    @Test
    void fireKey_sameIdentifyingParameters_isTheSameAndIgnoresNonIdentifyingOnes() {
        var a = new JobParametersBuilder()
                .addString("date", "2024-05-01")
                .addLong("attempt", 1L, false)
                .toJobParameters();
        var b = new JobParametersBuilder()
                .addString("date", "2024-05-01")
                .addLong("attempt", 2L, false)
                .toJobParameters();
        var c = new JobParametersBuilder().addString("date", "2024-05-02").toJobParameters();
        assertThat(GuardedJobOperator.fireKey(a))
                .isEqualTo(GuardedJobOperator.fireKey(b))
                .hasSize(32);
        assertThat(GuardedJobOperator.fireKey(c)).isNotEqualTo(GuardedJobOperator.fireKey(a));
    }
}
