package dev.tenure.batch;

import dev.tenure.TenureException;
import java.time.Duration;
import java.util.Objects;
import org.springframework.batch.core.step.skip.SkipPolicy;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.util.backoff.BackOff;

/**
 * Skip and retry policies that never skip or retry a fence failure: any {@link TenureException} in the cause chain
 * (a stale owner, a misconfigured fence, or the ledger unreachable during the check).
 */
final class StaleOwnerPolicies {

    private StaleOwnerPolicies() {}

    static boolean isFenceFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof TenureException) {
                return true;
            }
        }
        return false;
    }

    static SkipPolicy neverSkip(SkipPolicy delegate) {
        Objects.requireNonNull(delegate, "skipPolicy");
        return (t, skipCount) -> !isFenceFailure(t) && delegate.shouldSkip(t, skipCount);
    }

    static RetryPolicy neverRetry(RetryPolicy delegate) {
        Objects.requireNonNull(delegate, "retryPolicy");
        return new RetryPolicy() {
            @Override
            public boolean shouldRetry(Throwable t) {
                return !isFenceFailure(t) && delegate.shouldRetry(t);
            }

            @Override
            public Duration getTimeout() {
                return delegate.getTimeout();
            }

            @Override
            public BackOff getBackOff() {
                return delegate.getBackOff();
            }
        };
    }
}
