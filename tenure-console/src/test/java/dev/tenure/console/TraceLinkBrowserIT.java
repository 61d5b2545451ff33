package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 24, item 1, in a real headless Chromium and the CLI: runs traced by Micrometer Tracing's OpenTelemetry bridge
 * keep their trace ids on their rows; the job page shows each one, linked through the console's trace link template to
 * the trace UI, an untraced run's cell stays empty; {@code runs} prints them, and {@code --json} gives each run's
 * {@code traceId} and, with {@code --trace-link}, its {@code traceUrl}. Real Postgres. A screenshot goes to
 * {@code target/console-trace-link.png}.
 */
class TraceLinkBrowserIT {

    private static final String LINK = "https://tempo.example/trace/{traceId}";
    /** The trace id of each tenure.run span, by fire. */
    private static final Map<String, String> TRACES = new ConcurrentHashMap<>();

    private static PostgresDatabase db;
    private static CliFixture cli;
    private static SdkTracerProvider tracing;

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(TraceLinkBrowserIT.class);
        cli = new CliFixture(db);
        tracing = SdkTracerProvider.builder()
                .addSpanProcessor(new SpanProcessor() {
                    @Override
                    public void onStart(Context parent, ReadWriteSpan span) {}

                    @Override
                    public boolean isStartRequired() {
                        return false;
                    }

                    @Override
                    public void onEnd(ReadableSpan span) {
                        String fire =
                                span.getAttribute(io.opentelemetry.api.common.AttributeKey.stringKey("tenure.fire"));
                        if (span.getName().equals("tenure.run") && fire != null) {
                            TRACES.put(fire, span.getSpanContext().getTraceId());
                        }
                    }

                    @Override
                    public boolean isEndRequired() {
                        return true;
                    }
                })
                .build();
    }

    @AfterAll
    static void stop() {
        if (tracing != null) {
            tracing.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @Test
    void tracedRuns_showTheirTraceIds_linkedToTheTraceUi_inThePageAndTheCli() throws Exception {
        OtelCurrentTraceContext context = new OtelCurrentTraceContext();
        OtelTracer tracer = new OtelTracer(tracing.get("tenure-test"), context, event -> {});
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
        try (Tenure traced = Tenure.builder()
                        .dataSource(cli.pool())
                        .nodeName("traced-1")
                        .observationRegistry(registry)
                        .build();
                Tenure untraced = Tenure.builder()
                        .dataSource(cli.pool())
                        .nodeName("untraced-1")
                        .build()) {
            for (String fire : List.of("fire-1", "fire-2")) {
                assertThat(traced.coordinator()
                                .run("billing", fire, RunPolicy.skipFire(), ctx -> 1)
                                .status())
                        .isEqualTo(RunOutcome.Status.EXECUTED);
            }
            assertThat(untraced.coordinator()
                            .run("billing", "fire-3", RunPolicy.skipFire(), ctx -> 1)
                            .status())
                    .isEqualTo(RunOutcome.Status.EXECUTED);
        }
        assertThat(TRACES).containsOnlyKeys("fire-1", "fire-2");
        assertThat(TRACES.get("fire-1")).matches("[0-9a-f]{32}").isNotEqualTo(TRACES.get("fire-2"));

        HeadlessChromium chromium = HeadlessChromium.find();
        try (ConsoleServer server = TenureConsole.builder(cli.pool())
                        .refreshEvery(Duration.ZERO)
                        .traceLink(LINK)
                        .build()
                        .serve(new InetSocketAddress("127.0.0.1", 0));
                ChromiumTab tab = chromium.open()) {
            tab.navigate(server.url() + "/job?key=billing");
            tab.await("document.querySelector('table.runs') !== null", Duration.ofSeconds(10));
            JsonNode rows = tab.evaluate("[...document.querySelectorAll('table.runs tbody tr')].map(r => [r.cells[0]"
                    + ".textContent, r.cells[8].textContent, r.cells[8].querySelector('a') ? r.cells[8].querySelector('a')"
                    + ".href : null])");
            assertThat(rows).hasSize(3);
            for (JsonNode r : rows) {
                String fire = r.get(0).asText();
                if (fire.equals("fire-3")) {
                    assertThat(r.get(1).asText())
                            .as("an untraced run has no trace")
                            .isEmpty();
                    assertThat(r.get(2).isNull()).isTrue();
                } else {
                    String trace = TRACES.get(fire);
                    assertThat(r.get(1).asText()).as("the trace id of %s", fire).isEqualTo(trace);
                    assertThat(r.get(2).asText()).as("its link").isEqualTo("https://tempo.example/trace/" + trace);
                }
            }
            assertThat(tab.evaluate("[...document.querySelectorAll('table.runs thead th')].map(h => h.textContent)")
                            .get(8)
                            .asText())
                    .isEqualTo("trace");
            Path target = Path.of(System.getProperty("tenure.console.target", "target"));
            tab.screenshotFullPage(target.resolve("console-trace-link.png"));
        }

        CliFixture.Result text = cli.run("runs", "billing");
        assertThat(text.exit()).as(text.err()).isZero();
        assertThat(text.lines().get(0)).endsWith("TRACE");
        assertThat(text.out()).contains(TRACES.get("fire-1"), TRACES.get("fire-2"));
        JsonNode json =
                cli.run("runs", "billing", "--json", "--trace-link", LINK).json();
        for (JsonNode r : json.get("runs")) {
            String trace = TRACES.get(r.get("fire").asText());
            if (trace == null) {
                assertThat(r.get("traceId").isNull()).isTrue();
                assertThat(r.get("traceUrl").isNull()).isTrue();
            } else {
                assertThat(r.get("traceId").asText()).isEqualTo(trace);
                assertThat(r.get("traceUrl").asText()).isEqualTo("https://tempo.example/trace/" + trace);
            }
        }
        CliFixture.Result bad = cli.run("runs", "billing", "--trace-link", "tempo.example/{trace}");
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).contains("the trace link must be an http(s) URL with {traceId}");
    }
}
