package dev.tenure.bench.coordinated;

import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.samplers.Sampler;

/**
 * The observation registries of {@code --observations}: {@code meters} (a timer and a long task timer per observation,
 * as Boot's actuator records them) or {@code tracing} (an OpenTelemetry span per observation, every run sampled; the
 * spans end in the SDK, no exporter).
 */
final class Observations {

    private Observations() {}

    static ObservationRegistry registry(String kind) {
        ObservationRegistry r = ObservationRegistry.create();
        switch (kind) {
            case "meters" ->
                r.observationConfig().observationHandler(new DefaultMeterObservationHandler(new SimpleMeterRegistry()));
            case "tracing" -> {
                SdkTracerProvider provider = SdkTracerProvider.builder()
                        .setSampler(Sampler.alwaysOn())
                        .build();
                OtelTracer tracer =
                        new OtelTracer(provider.get("tenure-bench"), new OtelCurrentTraceContext(), event -> {});
                r.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
            }
            default -> throw new IllegalArgumentException("observations: " + kind);
        }
        return r;
    }
}
