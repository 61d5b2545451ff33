package dev.tenure.metrics;

import dev.tenure.RunOutcome;

/**
 * Where the job coordinator reports what happens to runs. The default does nothing; {@link MicrometerRunMetrics}
 * publishes {@link MetricNames#RUN_UNFENCED} and {@link MetricNames#FENCE_REJECTED}. Implementations must be
 * thread-safe and fast.
 */
public interface RunMetrics {

    /** A run that this process executed ended with {@code status}, after {@code fenceChecks} passed fence checks. */
    default void runEnded(String jobKey, RunOutcome.Status status, int fenceChecks) {}

    /**
     * A run of {@code jobKey} that this process executed took {@code ran}, from the claim to its end (the wait for the
     * job not counted). The sweeper goes by it to start catch-ups only in gaps between regular fires.
     */
    default void runTook(String jobKey, java.time.Duration ran) {}

    /** A fence check (or completion) of a run of {@code jobKey} was rejected: its epoch was stale. */
    default void fenceRejected(String jobKey) {}

    /** The sweeper recorded a fire of {@code jobKey} MISSED; {@code reason} is a short tag (see {@code MetricNames}). */
    default void fireMissed(String jobKey, String reason) {}

    /** The sweeper recorded {@code count} fires of {@code jobKey} MISSED at once (in a summary record). */
    default void firesMissed(String jobKey, String reason, long count) {
        for (long i = 0; i < count; i++) {
            fireMissed(jobKey, reason);
        }
    }

    /** After a sweep, {@code count} fires of {@code jobKey} are overdue: due, not completed, not running. */
    default void firesOverdue(String jobKey, int count) {}

    /** The sweeper found {@code count} schedules (of any application) that nobody swept for a while. */
    default void schedulesUnswept(int count) {}

    /**
     * This node stopped sweeping (it lost or left the sweeper election, or closed): the gauges that only the live sweeper
     * publishes ({@code tenure.fire.overdue}, {@code tenure.schedule.unswept}) must go, so that a {@code sum()} over
     * the nodes counts the live sweeper's figures once, not a former sweeper's last ones too.
     */
    default void notSweeping() {}

    /** How far this node's clock is ahead of the database's (negative: behind), as the sweeper last measured it. */
    default void clockSkew(java.time.Duration skew) {}

    /** A metrics sink that records nothing. */
    static RunMetrics none() {
        return new RunMetrics() {};
    }
}
