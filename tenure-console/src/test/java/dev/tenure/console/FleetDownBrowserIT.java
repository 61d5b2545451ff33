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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, item 1: the whole fleet is down. Application "billing" registered its jobs and stopped; the ledger is left
 * as a stopped fleet leaves it: the sweeper's last stamps are 23 minutes old ({@code swept_until}, {@code next_due_at},
 * {@code check_at}, {@code overdue = 0}), one fire after the last sweep completed before the fleet went down, and no
 * process runs. Without any sweeper, the console (job list and job page, in a real headless Chromium) and the CLI's
 * {@code schedules} show the fires overdue now, counted by the database clock, in red and with since when: exactly for
 * the fixed-rate job, at least one for a kind the console cannot read (a Spring cron); never for a paused or a retired
 * schedule. The job page lists which fires are overdue and which were recorded MISSED. Screenshots: {@code target/console-fleet-down.png} and {@code target/console-fleet-down-job.png}.
 */
class FleetDownBrowserIT {

    private static final String NODE = "vm/billing/4446";
    private static TestDatabase test;
    private static CliFixture cli;

    @BeforeAll
    static void start() throws Exception {
        test = TestDatabase.forClass(FleetDownBrowserIT.class);
        TenureSchema.migrate(test.pool());
        try (Tenure billing = Tenure.builder()
                .dataSource(test.pool())
                .application("billing")
                .nodeName(NODE)
                .build()) {
            for (String job : List.of("invoicing", "paused-job", "retired-job")) {
                billing.register(ScheduledJob.of(job, Schedule.fixedRate(Duration.ofMinutes(1)), fire -> {}));
            }
            billing.register(ScheduledJob.of("reports", new ForeignCron(), fire -> {}));
        }
        // the stopped fleet, registered 3 hours ago: its sweeper last swept 23 minutes ago; a fire after that sweep ran
        // before it went down
        test.sql(
                """
                UPDATE tenure.job_schedule SET grace_ms = 5000, overdue = 0,
                    swept_until = date_trunc('minute', clock_timestamp()) - interval '23 minutes',
                    swept_at = date_trunc('minute', clock_timestamp()) - interval '23 minutes' + interval '6 seconds',
                    swept_by = '%1$s',
                    next_due_at = date_trunc('minute', clock_timestamp()) - interval '22 minutes',
                    check_at = date_trunc('minute', clock_timestamp()) - interval '22 minutes' + interval '5 seconds',
                    seen_at = date_trunc('minute', clock_timestamp()) - interval '22 minutes' + interval '30 seconds',
                    registered_at = date_trunc('minute', clock_timestamp()) - interval '3 hours',
                    version_from = date_trunc('minute', clock_timestamp()) - interval '3 hours'""".formatted(NODE),
                "UPDATE tenure.job_schedule_version SET valid_from = date_trunc('minute', clock_timestamp()) "
                        + "- interval '3 hours'",
                """
                INSERT INTO tenure.job_run (run_id, job_key, fire_key, epoch, owner, node, status, started_at,
                    finished_at)
                SELECT gen_random_uuid(), 'invoicing', to_char(s.next_due_at AT TIME ZONE 'UTC',
                    'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 1, 'b6e8c8afe99a7511-4446-1.1', '%1$s', 'COMPLETED',
                    s.next_due_at, s.next_due_at + interval '40 milliseconds'
                FROM tenure.job_schedule s WHERE s.job_key = 'invoicing'""".formatted(NODE),
                """
                INSERT INTO tenure.job_run (run_id, job_key, fire_key, epoch, owner, status, started_at, finished_at,
                    error)
                SELECT gen_random_uuid(), 'invoicing', to_char((s.swept_until - interval '1 minute') AT TIME ZONE 'UTC',
                    'YYYY-MM-DD"T"HH24:MI:SS"Z"'), 1, '%1$s', 'MISSED', s.swept_at, s.swept_at,
                    'no node ran it; policy SKIP'
                FROM tenure.job_schedule s WHERE s.job_key = 'invoicing'""".formatted(NODE),
                """
                UPDATE tenure.job_schedule SET state = 'PAUSED', state_since = swept_until,
                    state_reason = 'paused in Quartz', state_by = '%1$s' WHERE job_key = 'paused-job'""".formatted(NODE),
                """
                INSERT INTO tenure.job_schedule_span (job_key, state, from_at, reason, set_by)
                SELECT job_key, 'PAUSED', swept_until, 'paused in Quartz', '%1$s' FROM tenure.job_schedule
                WHERE job_key = 'paused-job'""".formatted(NODE));
        TenureAdmin.create(test.pool()).retire("retired-job", "removed in 4.2", "cli:ann");
        cli = new CliFixture(test.database());
    }

    @AfterAll
    static void stop() throws Exception {
        cli.close();
        test.close();
    }

    @Test
    void aStoppedFleet_showsTheOverdueFiresInRedWithSince_inTheConsoleAndTheCli() throws Exception {
        int[] expected = new int[2];
        expected[0] = minuteSlotsOverdue();
        String since = Html.time(Instant.parse(test.query(
                "SELECT to_char((next_due_at + interval '1 minute') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
                        + "FROM tenure.job_schedule WHERE job_key = 'invoicing'")));
        String nextDue = Html.time(Instant.parse(
                test.query("SELECT to_char(next_due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') "
                        + "FROM tenure.job_schedule WHERE job_key = 'reports'")));
        String first = test.query("SELECT to_char((next_due_at + interval '1 minute') AT TIME ZONE 'UTC', "
                + "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') FROM tenure.job_schedule WHERE job_key = 'invoicing'");
        Path target = Path.of(System.getProperty("tenure.console.target", "target"));
        try (ConsoleServer server = TenureConsole.builder(test.pool())
                        .refreshEvery(Duration.ZERO)
                        .build()
                        .serve(new InetSocketAddress("127.0.0.1", 0));
                ChromiumTab tab = HeadlessChromium.find().open()) {
            tab.navigate(server.url() + "/");
            expected[1] = minuteSlotsOverdue();
            List<String> headers = new ArrayList<>();
            tab.evaluate("[...document.querySelectorAll('table.jobs th')].map(t => t.textContent)")
                    .forEach(h -> headers.add(h.asText()));
            int overdue = headers.indexOf("overdue");
            assertThat(overdue).as("the job list's overdue column").isNotNegative();

            JsonNode invoicing = row(tab, "invoicing", overdue);
            assertThat(invoicing.get(0).asText()).as("the row is highlighted").contains("attention");
            assertThat(invoicing.get(1).asText())
                    .as("every fire after the last sweep but the one that completed, by the database clock")
                    .isIn(shown(expected, since));
            assertThat(invoicing.get(2).asText()).as("the cell is red").contains("alert");
            assertThat(invoicing.get(3).asText()).isEqualTo("rgb(180, 52, 28)");

            JsonNode reports = row(tab, "reports", overdue);
            assertThat(reports.get(1).asText())
                    .as("a Spring cron the console cannot read: at least the fire at next_due_at")
                    .isEqualTo("1+ since " + nextDue);
            assertThat(reports.get(0).asText()).contains("attention");
            assertThat(reports.get(2).asText()).contains("alert");

            for (String quiet : List.of("paused-job", "retired-job")) {
                JsonNode r = row(tab, quiet, overdue);
                assertThat(r.get(1).asText()).as(quiet + " has no due fires").isEqualTo("0");
                assertThat(r.get(2).asText()).doesNotContain("alert");
            }
            tab.screenshotFullPage(target.resolve("console-fleet-down.png"));

            tab.navigate(server.url() + "/job?key=invoicing");
            JsonNode dd = tab.evaluate("(() => { const d = document.querySelector('section.schedule dd.overdue'); "
                    + "return d && [d.textContent, d.className, getComputedStyle(d).color]; })()");
            assertThat(dd.isNull()).as("the job page's overdue fires").isFalse();
            assertThat(dd.get(0).asText()).isIn(described(expected, since));
            assertThat(dd.get(1).asText()).contains("alert");
            assertThat(dd.get(2).asText()).isEqualTo("rgb(180, 52, 28)");
            List<String> slots = new ArrayList<>();
            tab.evaluate("[...document.querySelectorAll('section.schedule ul.overdue-fires li')]"
                            + ".map(li => li.textContent)")
                    .forEach(s -> slots.add(s.asText()));
            String ran = test.query(
                    "SELECT fire_key FROM tenure.job_runs WHERE job_key = 'invoicing' AND status = 'COMPLETED'");
            assertThat(slots)
                    .as("which slots are overdue, oldest first")
                    .startsWith(first)
                    .doesNotContain(ran);
            assertThat(tab.text()).contains(described(expected, since).get(0).replaceAll("^\\d+", ""));
            String missed = test.query("SELECT fire_key FROM tenure.job_runs WHERE status = 'MISSED'");
            assertThat(tab.evaluate("[...document.querySelectorAll('section.schedule ul.missed-fires li')]"
                                    + ".map(li => li.textContent)")
                            .get(0)
                            .asText())
                    .as("which fires were recorded MISSED, with why")
                    .isEqualTo(missed + " — no node ran it; policy SKIP");
            tab.screenshotFullPage(target.resolve("console-fleet-down-job.png"));
        }

        CliFixture.Result table = cli.run("schedules");
        JsonNode all = cli.run("schedules", "--json").json().get("schedules");
        expected[1] = minuteSlotsOverdue(); // a minute may begin while the test runs
        assertThat(table.exit()).as(table.err()).isZero();
        String line = table.lines().stream()
                .filter(l -> l.startsWith("invoicing "))
                .findFirst()
                .orElseThrow();
        assertThat(shown(expected, since)).anySatisfy(s -> assertThat(line).contains(s));
        assertThat(table.lines().stream()
                        .filter(l -> l.startsWith("reports "))
                        .findFirst()
                        .orElseThrow())
                .contains("1+ since " + nextDue);
        assertThat(table.out())
                .as("a line under the table names each job with overdue fires")
                .containsPattern("(?m)^overdue: invoicing: \\d+ fires overdue since " + since.replace(".", "\\."));
        JsonNode json = find(all, "invoicing");
        assertThat(json.get("overdueNow").asInt()).isBetween(expected[0], expected[1]);
        assertThat(json.get("overdueExact").asBoolean()).isTrue();
        assertThat(json.get("overdueSince").asText()).isEqualTo(first);
        assertThat(json.get("overdue").asInt())
                .as("the sweeper's count, as it left it")
                .isZero();
        JsonNode paused = find(all, "paused-job");
        assertThat(paused.get("overdueNow").asInt()).isZero();
    }

    /** The fixed-rate job's minute slots after the one that ran, due more than the 5 s grace ago (database clock). */
    private static int minuteSlotsOverdue() throws Exception {
        return Integer.parseInt(test.query("SELECT floor(extract(epoch FROM (clock_timestamp() - interval '5 seconds' "
                + "- next_due_at)) / 60)::int FROM tenure.job_schedule WHERE job_key = 'invoicing'"));
    }

    /** {@code <n> since <since>} for each count from {@code n[0]} to {@code n[1]}. */
    private static List<String> shown(int[] n, String since) {
        return java.util.stream.IntStream.rangeClosed(n[0], n[1])
                .mapToObj(i -> i + " since " + since)
                .toList();
    }

    private static List<String> described(int[] n, String since) {
        return java.util.stream.IntStream.rangeClosed(n[0], n[1])
                .mapToObj(i -> i + " fires overdue since " + since)
                .toList();
    }

    /** The job list's row of {@code job}: its class, the overdue cell's text, class and colour. */
    private static JsonNode row(ChromiumTab tab, String job, int column) {
        return tab.evaluate("(() => { const a = [...document.querySelectorAll('table.jobs a')]"
                + ".find(a => a.textContent === '" + job + "'); const tr = a.closest('tr'); const td = tr.cells["
                + column + "]; return [tr.className, td.textContent, td.className, getComputedStyle(td).color]; })()");
    }

    private static JsonNode find(JsonNode array, String job) {
        for (JsonNode n : array) {
            if (n.get("job").asText().equals(job)) {
                return n;
            }
        }
        throw new AssertionError("no " + job + " in " + array);
    }

    /** A schedule of a kind the console has no reader for, as the Spring Boot starter registers a cron. */
    private static final class ForeignCron implements Schedule {
        @Override
        public String kind() {
            return "spring-cron";
        }

        @Override
        public String expression() {
            return "0 * * * * * (UTC)";
        }

        @Override
        public Optional<Instant> nextAfter(Instant after) {
            return Optional.of(Instant.ofEpochSecond((after.getEpochSecond() / 60 + 1) * 60));
        }

        @Override
        public Optional<Function<String, Schedule>> reader() {
            return Optional.empty();
        }
    }
}
