package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import dev.tenure.db.TenureSchema;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The schedule as data, in a real headless Chromium: a job registered by application "shop" (version 1, a fixed rate of
 * a minute), changed to version 2, paused for an hour in the past, then retired by an operator, with a summary MISSED
 * record of 11,460 fires from an outage. The job page shows the state with since, who and why, the application, the
 * version and every version with its span of time, the PAUSED and RETIRED spans, the summary record as one line and
 * its fires in the count, and the retirement among the operator actions; the job list says RETIRED where a next fire
 * would be, and does not highlight the job. A screenshot goes to {@code target/console-schedule-retired.png}.
 */
class ScheduleStateBrowserIT {

    private static final String NODE = "web-1/shop/7";
    private static final String SUMMARY_KEY = "2026-11-29T00:01:00Z..2026-12-06T23:00:00Z";
    private static TestDatabase test;

    @BeforeAll
    static void start() throws Exception {
        test = TestDatabase.forClass(ScheduleStateBrowserIT.class);
        TenureSchema.migrate(test.pool());
        try (Tenure shop = Tenure.builder()
                .dataSource(test.pool())
                .application("shop")
                .nodeName(NODE)
                .build()) {
            shop.register(ScheduledJob.of("billing", Schedule.fixedRate(Duration.ofMinutes(1)), fire -> {}));
        }
        // version 2 as a registration of a changed schedule writes it (JdbcScheduleLedger.register fails on Postgres
        // for a changed schedule today: see ScheduleAdminIT.newVersion), a pause that ended an hour ago, and the
        // summary
        // record a sweep writes after a long outage
        test.sql(
                """
                WITH t AS (SELECT clock_timestamp() - interval '3 hours' AS at),
                e AS (UPDATE tenure.job_schedule_version v SET valid_from = t.at - interval '1 day', valid_until = t.at
                    FROM t
                    WHERE v.job_key = 'billing' AND v.version = 1),
                n AS (INSERT INTO tenure.job_schedule_version
                    (job_key, version, kind, expression, policy, registered_by, valid_from)
                    SELECT 'billing', 2, 'fixed-rate', 'PT5M', 'catch-up', 'web-2/shop/9', t.at FROM t)
                UPDATE tenure.job_schedule s SET previous_kind = kind, previous_expression = expression,
                    previous_by = registered_by, changed_at = t.at, version = 2, version_from = t.at,
                    expression = 'PT5M', registered_by = 'web-2/shop/9'
                FROM t WHERE s.job_key = 'billing'""",
                "INSERT INTO tenure.job_schedule_span (job_key, state, from_at, until_at, reason, set_by) VALUES "
                        + "('billing', 'PAUSED', clock_timestamp() - interval '2 hours', "
                        + "clock_timestamp() - interval '1 hour', 'paused in Quartz for the migration', '" + NODE
                        + "')",
                "INSERT INTO tenure.job_run (run_id, job_key, fire_key, epoch, owner, status, started_at, finished_at, "
                        + "error) VALUES (gen_random_uuid(), 'billing', '" + SUMMARY_KEY + "', 0, '300@host#0badf00d', "
                        + "'MISSED', clock_timestamp(), clock_timestamp(), '11460 fires due from 2026-11-29T00:01:00Z "
                        + "to 2026-12-06T23:00:00Z missed: no node ran them; older than the policy''s max age PT1H')");
        TenureAdmin.create(test.pool()).retire("billing", "billing moved to the ledger service", "cli:ann");
    }

    @AfterAll
    static void stop() {
        test.close();
    }

    @Test
    void theJobPage_showsTheStateVersionsSpansAndASummaryRecordAsOneLine() throws Exception {
        try (ConsoleServer server = TenureConsole.builder(test.pool())
                        .refreshEvery(Duration.ZERO)
                        .build()
                        .serve(new InetSocketAddress("127.0.0.1", 0));
                ChromiumTab tab = HeadlessChromium.find().open()) {
            tab.navigate(server.url() + "/job?key=billing");
            Map<String, String> schedule = definitions(tab);
            assertThat(schedule.get("state"))
                    .matches("RETIRED since 20\\S+ \\S+Z by cli:ann: billing moved to the ledger service");
            assertThat(schedule)
                    .containsEntry("application", "shop")
                    .containsEntry("schedule", "fixed-rate PT5M")
                    .containsEntry("next sweep", "none (retired)")
                    .containsEntry("missed in the last hour", "≥ " + TenureAdmin.MISSED_CAP);
            assertThat(tab.evaluate("document.querySelectorAll('section.schedule dd.alert').length")
                            .asInt())
                    .as(
                            "a retired schedule's counts do not alarm, nor does a replaced schedule: it is an earlier version")
                    .isZero();
            assertThat(schedule.get("replaced schedule")).contains("by version 2");
            assertThat(schedule.get("version")).matches("2 \\(since 20\\S+ \\S+Z\\)");
            assertThat(tab.evaluate("document.querySelector('section.schedule').className")
                            .asText())
                    .as("a retired schedule needs no attention")
                    .isEqualTo("schedule");

            List<List<String>> versions = rows(tab, "table.versions");
            assertThat(versions).extracting(v -> v.get(0)).containsExactly("2", "1");
            assertThat(versions.get(0)).containsSequence("fixed-rate PT5M").endsWith("now", "web-2/shop/9");
            assertThat(versions.get(1).get(1)).isEqualTo("fixed-rate PT1M");
            assertThat(versions.get(1).get(2)).as("from its registration").startsWith("20");
            assertThat(versions.get(1).get(3))
                    .as("version 1 ends where 2 begins")
                    .isEqualTo(versions.get(0).get(2));

            List<List<String>> spans = rows(tab, "table.spans");
            assertThat(spans).extracting(s -> s.get(0)).containsExactly("RETIRED", "PAUSED");
            assertThat(spans.get(0).subList(2, 5))
                    .containsExactly("now", "billing moved to the ledger service", "cli:ann");
            assertThat(spans.get(1).subList(3, 5)).containsExactly("paused in Quartz for the migration", NODE);

            List<List<String>> fires = rows(tab, "table.runs");
            assertThat(fires).hasSize(1);
            assertThat(fires.get(0).get(0))
                    .as("one line for the summary record, not a fire")
                    .isEqualTo("11460 fires " + SUMMARY_KEY + " missed");
            assertThat(fires.get(0).get(3)).isEqualTo("MISSED");
            assertThat(tab.text()).contains("11460 missed fires");
            assertThat(tab.evaluate("document.querySelector('ul.audit li').textContent")
                            .asText())
                    .endsWith("retire by cli:ann — billing moved to the ledger service")
                    .doesNotContain("epoch");
            tab.screenshotFullPage(Path.of(System.getProperty("tenure.console.target", "target"))
                    .resolve("console-schedule-retired.png"));

            tab.navigate(server.url() + "/");
            JsonNode row = tab.evaluate("(() => { const a = [...document.querySelectorAll('table.jobs a')]"
                    + ".find(a => a.textContent === 'billing'); const tr = a.closest('tr'); "
                    + "return [tr.className, ...[...tr.cells].map(c => c.textContent)]; })()");
            List<String> headers = new ArrayList<>();
            tab.evaluate("[...document.querySelectorAll('table.jobs th')].map(t => t.textContent)")
                    .forEach(h -> headers.add(h.asText()));
            assertThat(row.get(0).asText()).doesNotContain("attention");
            assertThat(row.get(1 + headers.indexOf("next due")).asText()).isEqualTo("RETIRED");
        }
    }

    /** The {@code dt}/{@code dd} pairs of the schedule section. */
    private static Map<String, String> definitions(ChromiumTab tab) {
        Map<String, String> out = new LinkedHashMap<>();
        tab.evaluate("[...document.querySelectorAll('section.schedule dt')]"
                        + ".map(d => [d.textContent, d.nextElementSibling.textContent])")
                .forEach(p -> out.put(p.get(0).asText(), p.get(1).asText()));
        return out;
    }

    /** The cells of each body row of the table {@code selector} finds. */
    private static List<List<String>> rows(ChromiumTab tab, String selector) {
        List<List<String>> out = new ArrayList<>();
        tab.evaluate("[...document.querySelectorAll('" + selector + " tbody tr')]"
                        + ".map(tr => [...tr.cells].map(c => c.textContent))")
                .forEach(r -> {
                    List<String> cells = new ArrayList<>();
                    r.forEach(c -> cells.add(c.asText()));
                    out.add(cells);
                });
        return out;
    }
}
