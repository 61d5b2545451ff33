package dev.tenure.quartz;

import dev.tenure.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * Counts fires in a Micrometer registry as {@value MetricNames#JOB_FIRES} with tags {@code integration=quartz},
 * {@code job} and {@code outcome}, and suspect schedules as {@value MetricNames#QUARTZ_SCHEDULE_WARNINGS} with tags
 * {@code job} and {@code reason} (micrometer-core is an optional dependency: only this class needs it). Thread-safe.
 */
public final class MicrometerFireMetrics implements FireMetrics {

    private final MeterRegistry registry;

    public MicrometerFireMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public void fire(String job, String outcome) {
        try {
            registry.counter(MetricNames.JOB_FIRES, "integration", "quartz", "job", job, "outcome", outcome)
                    .increment();
        } catch (RuntimeException e) {
            // a metrics registry must never break a fire
        }
    }

    @Override
    public void scheduleWarning(String job, String reason) {
        try {
            registry.counter(MetricNames.QUARTZ_SCHEDULE_WARNINGS, "job", job, "reason", reason)
                    .increment();
        } catch (RuntimeException e) {
            // nor a registration
        }
    }
}
