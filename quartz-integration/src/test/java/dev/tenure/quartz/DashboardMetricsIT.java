package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.metrics.MicrometerRunMetrics;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every metric and label the Grafana dashboard ({@code dashboards/tenure.json}) queries is one that Tenure's real code
 * registers, as a Prometheus scrape names it: Tenure runs a job on a real Postgres with a {@link PrometheusMeterRegistry},
 * and the run, fire and Quartz metrics classes record the events a short test cannot bring about (a missed fire, a
 * stale fence, a suspect trigger). A renamed meter, or a panel that queries a name Tenure never publishes, fails here.
 */
class DashboardMetricsIT {

    private static final Path DASHBOARD = Path.of("..", "dashboards", "tenure.json");
    private static final Pattern METRIC = Pattern.compile("\\btenure_[a-z0-9_]+");
    private static final Pattern BY = Pattern.compile("\\bby\\s*\\(([^)]*)\\)");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"");
    private static final Pattern LABEL_VALUES =
            Pattern.compile("label_values\\(\\s*(tenure_[a-z0-9_]+)\\s*,\\s*([a-z_]+)\\s*\\)");
    /** Labels Prometheus adds at the scrape, not Tenure. */
    private static final Set<String> SCRAPE_LABELS = Set.of("instance");

    static PostgresDatabase db;
    static PrometheusMeterRegistry registry;
    static Tenure tenure;

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(DashboardMetricsIT.class);
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        tenure = Tenure.builder()
                .dataSource(db.dataSource())
                .meterRegistry(registry)
                .build();
    }

    @AfterAll
    static void stop() {
        if (tenure != null) {
            tenure.close();
        }
        db.close();
    }

    @Test
    void everyMetricAndLabelOfTheDashboard_isPublishedByTenure() throws IOException {
        RunOutcome<Object> run = tenure.coordinator().run("dash-job", "fire-1", RunPolicy.skipFire(), ctx -> null);
        assertThat(run.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        MicrometerRunMetrics runs = new MicrometerRunMetrics(registry);
        runs.fireMissed("dash-job", "not_run");
        runs.firesOverdue("dash-job", 2);
        runs.fenceRejected("dash-job");
        MicrometerFireMetrics fires = new MicrometerFireMetrics(registry);
        fires.fire("dash-job", "executed");
        fires.scheduleWarning("dash-job", "cron_default_zone");

        Map<String, Set<String>> scraped = scrape(registry.scrape());
        List<String> queries = queries(new ObjectMapper().readTree(DASHBOARD.toFile()));
        assertThat(queries).as("the dashboard's queries").hasSizeGreaterThan(15);

        assertThat(problems(queries, scraped)).isEmpty();
    }

    @Test
    void theCheck_findsAMetricOrLabelTenureDoesNotPublish() {
        Map<String, Set<String>> scraped =
                Map.of("tenure_lease_lost_total", Set.of(), "tenure_job_fires_total", Set.of("job", "outcome"));
        assertThat(problems(
                        List.of(
                                "sum(rate(tenure_lease_lost_total[5m]))",
                                "sum by (job) (rate(tenure_job_fires_total{outcome=\"failed\"}[5m]))"),
                        scraped))
                .isEmpty();
        assertThat(problems(List.of("sum(rate(tenure_lease_losses_total[5m]))"), scraped))
                .singleElement()
                .asString()
                .contains("tenure_lease_losses_total");
        assertThat(problems(List.of("sum by (node) (rate(tenure_job_fires_total[5m]))"), scraped))
                .singleElement()
                .asString()
                .contains("node");
        assertThat(problems(List.of("sum(rate(up[5m]))"), scraped))
                .singleElement()
                .asString()
                .contains("no Tenure metric");
    }

    /** What is wrong with {@code queries} against the metrics (and their labels) of a scrape; empty if nothing. */
    static List<String> problems(List<String> queries, Map<String, Set<String>> scraped) {
        List<String> problems = new ArrayList<>();
        for (String q : queries) {
            String expr = q.replace("${job_label}", "job"); // the dashboard's variable for Tenure's 'job' tag
            Set<String> metrics = new TreeSet<>();
            METRIC.matcher(expr).results().forEach(r -> metrics.add(r.group()));
            if (metrics.isEmpty()) {
                problems.add("no Tenure metric in: " + q);
            }
            Set<String> labels = new HashSet<>();
            for (String m : metrics) {
                if (!scraped.containsKey(m)) {
                    problems.add(m + " is not published by Tenure (in: " + q + ")");
                } else {
                    labels.addAll(scraped.get(m));
                }
            }
            for (String label : labelsOf(expr)) {
                if (!labels.contains(label) && !SCRAPE_LABELS.contains(label)) {
                    problems.add("label '" + label + "' is on none of " + metrics + " (in: " + q + ")");
                }
            }
        }
        return problems;
    }

    /** The label names an expression groups by or matches on. */
    private static Set<String> labelsOf(String expr) {
        Set<String> labels = new TreeSet<>();
        Matcher by = BY.matcher(expr);
        while (by.find()) {
            for (String l : by.group(1).split(",")) {
                if (!l.isBlank()) {
                    labels.add(l.trim());
                }
            }
        }
        Matcher m = MATCHER.matcher(expr);
        while (m.find()) {
            labels.add(m.group(1));
        }
        Matcher lv = LABEL_VALUES.matcher(expr);
        while (lv.find()) {
            labels.add(lv.group(2));
        }
        return labels;
    }

    /** Metric name to label names, from Prometheus's text format. */
    private static Map<String, Set<String>> scrape(String text) {
        Map<String, Set<String>> metrics = new HashMap<>();
        for (String line : text.lines().toList()) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.indexOf(' ');
            int end = brace >= 0 && brace < space ? brace : space;
            Set<String> labels = metrics.computeIfAbsent(line.substring(0, end), k -> new HashSet<>());
            if (end == brace) {
                Matcher m = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"")
                        .matcher(line.substring(brace, line.lastIndexOf('}')));
                while (m.find()) {
                    labels.add(m.group(1));
                }
            }
        }
        return metrics;
    }

    /** Every PromQL query of the dashboard: the panels' targets and the template variables' queries. */
    private static List<String> queries(JsonNode dashboard) {
        List<String> queries = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                queries.add(target.path("expr").asText());
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("type").asText().equals("query")) {
                queries.add(variable.path("definition").asText());
                queries.add(variable.path("query").path("query").asText());
            }
        }
        return queries;
    }
}
