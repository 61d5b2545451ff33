package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.boot.app.TestApps;
import dev.tenure.boot.app.TracedApp;
import dev.tenure.testkit.Timing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A coordinated {@code @Scheduled} fire in a Boot application traced with OpenTelemetry (Micrometer Tracing's bridge,
 * spans into an in-memory exporter), with no Tenure wiring of its own: Spring's {@code tasks.scheduled.execution} span
 * has {@code tenure.run} as its child, which has the claim, the work and the completion as its children, with the run's
 * key values; and the trace id is on the fire's {@code job_run} row. Real Postgres and Valkey.
 */
class TracedRunIT {

    static BootServers servers;
    static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() {
        servers = BootServers.start(TracedRunIT.class);
        app = TestApps.start(
                TracedApp.class,
                servers,
                "management.tracing.sampling.probability=1.0",
                "management.otlp.metrics.export.enabled=false",
                "tenure.node-name=traced-1");
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void scheduledFire_isATraceOfRunClaimWorkComplete_underTheScheduledTask_withItsTraceIdOnTheRow() throws Exception {
        InMemorySpanExporter exporter = app.getBean(InMemorySpanExporter.class);
        SpanData run = await().atMost(Timing.scaled(Duration.ofSeconds(15)))
                .until(() -> executedRun(exporter.getFinishedSpanItems()), Optional::isPresent)
                .orElseThrow();
        List<SpanData> trace = await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(
                        () -> exporter.getFinishedSpanItems().stream()
                                .filter(s -> s.getTraceId().equals(run.getTraceId()))
                                .toList(),
                        spans -> spans.size() >= 5);

        SpanData scheduled = trace.stream()
                .filter(s -> s.getSpanId().equals(run.getParentSpanId()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("tenure.run has no parent span in its trace: " + names(trace)));
        assertThat(scheduled.getParentSpanContext().isValid())
                .as("the scheduled task's span is the root")
                .isFalse();
        assertThat(scheduled.getAttributes().get(AttributeKey.stringKey("code.function")))
                .isEqualTo("settle");
        assertThat(trace)
                .as("tasks.scheduled.execution > tenure.run > claim, work, complete: " + names(trace))
                .hasSize(5);
        for (String phase : List.of("tenure.run.claim", "tenure.run.work", "tenure.run.complete")) {
            SpanData child = trace.stream()
                    .filter(s -> s.getName().equals(phase))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no " + phase + " in " + names(trace)));
            assertThat(child.getParentSpanId())
                    .as(phase + "'s parent in " + names(trace) + " run " + run.getSpanId())
                    .isEqualTo(run.getSpanId());
            assertThat(attr(child, "tenure.job")).isEqualTo(TracedApp.JOB);
        }
        assertThat(attr(trace, "tenure.run.claim", "tenure.outcome")).isEqualTo("CLAIMED");
        assertThat(attr(trace, "tenure.run.work", "tenure.outcome")).isEqualTo("SUCCEEDED");
        assertThat(attr(trace, "tenure.run.complete", "tenure.outcome")).isEqualTo("EXECUTED");

        assertThat(attr(run, "tenure.job")).isEqualTo(TracedApp.JOB);
        assertThat(attr(run, "tenure.outcome")).isEqualTo("EXECUTED");
        assertThat(attr(run, "tenure.mode")).isEqualTo("VALKEY_WITH_DATABASE_FALLBACK");
        assertThat(attr(run, "tenure.fallback")).isEqualTo("false");
        assertThat(attr(run, "tenure.integration")).isEqualTo("scheduled");
        assertThat(attr(run, "tenure.node")).isEqualTo("traced-1");
        String fire = attr(run, "tenure.fire");
        assertThat(fire).isNotBlank();
        assertThat(Long.parseLong(attr(run, "tenure.epoch"))).isPositive();
        assertThat(attr(run, "tenure.owner")).isNotBlank();

        try (Connection c = servers.db().dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT trace_id, epoch, owner FROM tenure.job_runs " + "WHERE job_key = ? AND fire_key = ?")) {
            ps.setString(1, TracedApp.JOB);
            ps.setString(2, fire);
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("the fire's run row").isTrue();
                assertThat(rs.getString(1)).isEqualTo(run.getTraceId());
                assertThat(rs.getString(2)).isEqualTo(attr(run, "tenure.epoch"));
                assertThat(rs.getString(3)).isEqualTo(attr(run, "tenure.owner"));
            }
        }
    }

    private static Optional<SpanData> executedRun(List<SpanData> spans) {
        return spans.stream()
                .filter(s -> s.getName().equals("tenure.run") && "EXECUTED".equals(attr(s, "tenure.outcome")))
                .findFirst();
    }

    private static String attr(SpanData span, String key) {
        return span.getAttributes().get(AttributeKey.stringKey(key));
    }

    private static String attr(List<SpanData> trace, String name, String key) {
        return trace.stream()
                .filter(s -> s.getName().equals(name))
                .map(s -> attr(s, key))
                .findFirst()
                .orElse(null);
    }

    private static List<String> names(List<SpanData> trace) {
        return trace.stream()
                .map(s -> s.getName() + "(" + s.getSpanId() + " < " + s.getParentSpanId() + ")")
                .toList();
    }
}
