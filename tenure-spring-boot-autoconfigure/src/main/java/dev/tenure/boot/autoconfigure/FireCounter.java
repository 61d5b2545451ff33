package dev.tenure.boot.autoconfigure;

import dev.tenure.RunOutcome;
import dev.tenure.TenureException;
import dev.tenure.boot.CoordinatedRunListener;
import dev.tenure.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Counts fires of {@code @Coordinated} methods as {@value MetricNames#JOB_FIRES} with tags
 * {@code integration=scheduled}, {@code job} and {@code outcome} (a {@link RunOutcome.Status} in lower case, or
 * {@code fault_skipped}), like the Quartz integration's fire counter. Never throws.
 */
final class FireCounter implements CoordinatedRunListener {

    private final ObjectProvider<MeterRegistry> registry;

    FireCounter(ObjectProvider<MeterRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public void finished(RunOutcome<?> outcome) {
        count(outcome.jobKey(), outcome.status().name().toLowerCase(Locale.ROOT));
    }

    @Override
    public void faulted(String jobKey, String fireKey, TenureException fault) {
        count(jobKey, "fault_skipped");
    }

    private void count(String job, String outcome) {
        registry.ifUnique(
                r -> r.counter(MetricNames.JOB_FIRES, "integration", "scheduled", "job", job, "outcome", outcome)
                        .increment());
    }
}
