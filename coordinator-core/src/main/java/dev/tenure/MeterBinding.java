package dev.tenure;

import dev.tenure.metrics.MetricNames;
import dev.tenure.metrics.MicrometerLeaseMetrics;
import dev.tenure.metrics.MicrometerRunMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;

/** Micrometer wiring of {@link Tenure.Builder#meterRegistry}: loaded only when a registry is given (Micrometer is optional). */
final class MeterBinding {

    private MeterBinding() {}

    static Object check(Object registry) {
        if (!(registry instanceof MeterRegistry)) {
            throw new IllegalArgumentException(
                    "meterRegistry must be an io.micrometer.core.instrument.MeterRegistry (got "
                            + (registry == null ? "null" : registry.getClass().getName()) + ")");
        }
        return registry;
    }

    static Tenure.Metrics bind(Object registry) {
        MeterRegistry r = (MeterRegistry) registry;
        return new Tenure.Metrics(new MicrometerLeaseMetrics(r), new MicrometerRunMetrics(r));
    }

    /** The coordinator's fallback meters: whether runs bypass Valkey now, and how often they started to. */
    static void bind(Object registry, JobCoordinator coordinator) {
        MeterRegistry r = (MeterRegistry) registry;
        String mode = coordinator.mode().name().toLowerCase(Locale.ROOT);
        Gauge.builder(MetricNames.FALLBACK_ACTIVE, coordinator, c -> c.inFallback() ? 1 : 0)
                .tag("mode", mode)
                .description("1 while coordinated runs bypass an unreachable Valkey (database alone), else 0")
                .register(r);
        FunctionCounter.builder(MetricNames.FALLBACK_STARTED, coordinator, JobCoordinator::fallbacks)
                .tag("mode", mode)
                .description("Times coordinated runs started to bypass an unreachable Valkey")
                .register(r);
    }
}
