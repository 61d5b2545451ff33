package dev.tenure.console;

import dev.tenure.metrics.TtlAdvisor;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A lease TTL proposed from a job's observed run durations (its latest COMPLETED runs): the same rule as the
 * coordinator's {@link TtlAdvisor}, three times the 99th percentile, at least 1 s. With the watchdog renewing every
 * TTL/3, the TTL bounds how long a crashed holder blocks the job, and 3 × p99 leaves room for a slow run's renewals to
 * be late twice. Only COMPLETED runs count: an ABANDONED or REJECTED_STALE run lasted until someone took its lease
 * away (a frozen holder, a force-release), and a FAILED one until the work threw; neither is how long the work takes.
 * Fewer than {@value #MIN_SAMPLES} completed runs give no advice.
 */
record TtlAdvice(String jobKey, int samples, Duration p99, Duration max, Duration suggested) {

    /** The least number of completed runs for advice. */
    static final int MIN_SAMPLES = 5;

    /** From the COMPLETED ones of {@code runs} (any order); empty with fewer than {@value #MIN_SAMPLES} of them. */
    static Optional<TtlAdvice> of(String jobKey, List<Views.Run> runs) {
        List<Duration> durations = runs.stream()
                .filter(r -> "COMPLETED".equals(r.status()))
                .map(Views.Run::duration)
                .filter(d -> d != null && !d.isNegative())
                .toList();
        if (durations.size() < MIN_SAMPLES) {
            return Optional.empty();
        }
        TtlAdvisor advisor = new TtlAdvisor(durations.size());
        durations.forEach(advisor::record);
        Duration max = durations.stream().max(Duration::compareTo).orElseThrow();
        return Optional.of(new TtlAdvice(
                jobKey,
                durations.size(),
                advisor.holdP99().orElseThrow(),
                max,
                advisor.suggestedTtl().orElseThrow()));
    }
}
