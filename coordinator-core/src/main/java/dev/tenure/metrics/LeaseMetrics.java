package dev.tenure.metrics;

import java.time.Duration;

/**
 * Where Tenure reports what happens to leases. The default does nothing; {@link MicrometerLeaseMetrics}
 * publishes the meters listed in {@link MetricNames}. Implementations must be thread-safe and fast: they are
 * called on hot paths and on the watchdog thread.
 */
public interface LeaseMetrics {

    /**
     * How an acquire attempt ended: the {@code result} tag of {@code tenure.lease.acquire}, in lower case. Not the
     * store's answer, which is a {@link dev.tenure.spi.AcquireResult}. {@code DONE}: a coordinated run's filter found
     * the marker of its fire's completion, so the run was skipped without asking the database.
     */
    enum AcquireOutcome {
        ACQUIRED,
        HELD,
        TIMEOUT,
        ERROR,
        DONE
    }

    default void acquire(AcquireOutcome outcome, long nanos) {}

    default void held(Duration holdTime, Duration ttl) {}

    default void retry() {}

    default void renewFailure() {}

    default void lost() {}

    default void releaseFailure() {}

    /** A metrics sink that records nothing. */
    static LeaseMetrics none() {
        return new LeaseMetrics() {};
    }
}
