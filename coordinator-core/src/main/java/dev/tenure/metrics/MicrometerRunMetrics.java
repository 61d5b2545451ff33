package dev.tenure.metrics;

import dev.tenure.RunOutcome;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Publishes run metrics to a Micrometer registry: {@value MetricNames#RUN_UNFENCED} counts runs that executed without a
 * single fence check (operators see jobs that write unprotected), {@value MetricNames#FENCE_REJECTED} counts fence
 * checks refused as stale; both tagged {@code job}. Thread-safe.
 */
public final class MicrometerRunMetrics implements RunMetrics {

    private final MeterRegistry registry;
    private final Map<String, AtomicInteger> overdue = new ConcurrentHashMap<>();

    public MicrometerRunMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void runEnded(String jobKey, RunOutcome.Status status, int fenceChecks) {
        if (status == RunOutcome.Status.EXECUTED && fenceChecks == 0) {
            registry.counter(MetricNames.RUN_UNFENCED, "job", jobKey).increment();
        }
    }

    @Override
    public void fireMissed(String jobKey, String reason) {
        registry.counter(MetricNames.FIRE_MISSED, "job", jobKey, "reason", reason)
                .increment();
    }

    @Override
    public void firesOverdue(String jobKey, int count) {
        overdue.computeIfAbsent(
                        jobKey, k -> registry.gauge(MetricNames.FIRE_OVERDUE, Tags.of("job", k), new AtomicInteger()))
                .set(count);
    }

    @Override
    public void fenceRejected(String jobKey) {
        registry.counter(MetricNames.FENCE_REJECTED, "job", jobKey).increment();
    }
}
