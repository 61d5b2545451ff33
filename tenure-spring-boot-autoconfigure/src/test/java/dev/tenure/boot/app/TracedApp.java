package dev.tenure.boot.app;

import dev.tenure.boot.Coordinated;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A {@code @Coordinated @Scheduled} method every second in an application traced by Boot's OpenTelemetry support
 * (Micrometer Tracing's bridge); its spans go to an in-memory exporter as each one ends. No Tenure wiring of its own.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableScheduling
public class TracedApp {

    public static final String JOB = "traced-settlement";

    @Bean
    InMemorySpanExporter spans() {
        return InMemorySpanExporter.create();
    }

    /** Exports each span when it ends (Boot's batch processor would wait for its schedule). */
    @Bean
    SpanProcessor exportAtOnce(InMemorySpanExporter spans) {
        return SimpleSpanProcessor.create(spans);
    }

    @Bean
    Methods methods() {
        return new Methods();
    }

    public static class Methods {
        @Scheduled(cron = "* * * * * *", zone = "UTC")
        @Coordinated(JOB)
        public void settle() {}
    }
}
