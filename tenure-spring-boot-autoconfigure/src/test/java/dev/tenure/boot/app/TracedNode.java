package dev.tenure.boot.app;

import dev.tenure.JobContext;
import dev.tenure.boot.Coordinated;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * One node of {@code TracedTakeoverIT}, in a JVM of its own: a traced Boot application (OpenTelemetry bridge) whose
 * {@code @Coordinated} method runs every 2 s for 1.5 s; missed fires are caught up. It prints {@code READY} once
 * started, {@code BEGIN <fire>} as a run starts and {@code SPAN <name> <trace> <span> <parent> <fire> <outcome>
 * <node>} as each span ends.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableScheduling
public class TracedNode {

    public static final String JOB = "traced-takeover";

    public static void main(String[] args) {
        new SpringApplicationBuilder(TracedNode.class).run(args);
        System.out.println("READY");
    }

    @Bean
    SpanProcessor printSpans() {
        return SimpleSpanProcessor.create(new SpanExporter() {
            @Override
            public CompletableResultCode export(Collection<SpanData> spans) {
                for (SpanData s : spans) {
                    System.out.println("SPAN " + s.getName().replace(' ', '_') + " " + s.getTraceId() + " "
                            + s.getSpanId() + " " + s.getParentSpanId() + " " + attr(s, "tenure.fire") + " "
                            + attr(s, "tenure.outcome") + " " + attr(s, "tenure.node"));
                }
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
            }

            @Override
            public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
            }
        });
    }

    private static String attr(SpanData s, String key) {
        return String.valueOf(s.getAttributes().get(AttributeKey.stringKey(key)));
    }

    @Bean
    Methods methods() {
        return new Methods();
    }

    public static class Methods {
        @Scheduled(cron = "*/2 * * * * *", zone = "UTC")
        @Coordinated(value = JOB, missedFires = "catch-up")
        public void settle() throws InterruptedException {
            System.out.println("BEGIN " + JobContext.current().fireKey());
            Thread.sleep(1500);
        }
    }
}
