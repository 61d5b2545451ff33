package dev.tenure;

import dev.tenure.metrics.MicrometerLeaseMetrics;
import dev.tenure.metrics.MicrometerRunMetrics;
import io.micrometer.core.instrument.MeterRegistry;

/** Micrometer wiring of {@link Tenure.Builder#meterRegistry}: loaded only when a registry is given (Micrometer is optional). */
final class MeterBinding {

    private MeterBinding() {
    }

    static Object check(Object registry) {
        if (!(registry instanceof MeterRegistry)) {
            throw new IllegalArgumentException("meterRegistry must be an io.micrometer.core.instrument.MeterRegistry (got "
                    + (registry == null ? "null" : registry.getClass().getName()) + ")");
        }
        return registry;
    }

    static Tenure.Metrics bind(Object registry) {
        MeterRegistry r = (MeterRegistry) registry;
        return new Tenure.Metrics(new MicrometerLeaseMetrics(r), new MicrometerRunMetrics(r));
    }
}
