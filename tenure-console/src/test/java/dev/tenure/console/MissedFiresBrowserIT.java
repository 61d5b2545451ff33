package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.MissedSummary;
import dev.tenure.db.TenureAdmin;
import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 21, acceptance 3: every node stopped for 20 s with a 1 s schedule and a catch-up limit of 5 gives exactly 5
 * catch-up runs, once each, and the other overdue fires MISSED, shown by the console in headless Chromium and by the
 * CLI's {@code missed}.
 *
 * <p>Two {@link ScheduleNode} JVMs (Valkey and Postgres real) run the "billing" job's 1 s slots in a plain loop and
 * register its schedule (CATCH_UP, at most 5, grace 1 s, a sweep every 500 ms). Once both have settled slot {@code s}
 * and less than 450 ms of it have passed, both are stopped (SIGSTOP) at {@code P} and continued (SIGCONT) at
 * {@code R = P + 20 s}. Which fires count:
 * <ul>
 * <li>the <b>window</b>: the fires due while every node was stopped, {@code P <= due < R}: 20 of them;</li>
 * <li>the <b>overdue</b> ones: those of the window whose grace had ended at {@code R} ({@code due + grace <= R}): 19.
 *     The sweeper counts a fire as overdue only after its grace, so these are the fires it must settle;</li>
 * <li>the rest of the window, the slot current at {@code R} (due less than a grace before it): each loop wakes up and
 *     runs its current slot, as after any pause shorter than a slot. It is not overdue, and must run once.</li>
 * </ul>
 * Expected: the newest 5 overdue fires ran once each as catch-ups, the other 14 are MISSED with the reason (the newest 10
 * with a row each, the older ones in one summary record, which the console and {@code missed} show as one line), and no
 * fire of the window has both a business row and a MISSED record, or neither.
 */
class MissedFiresBrowserIT {

    private static final Duration STOPPED = Duration.ofSeconds(20);
    private static TestDatabase test;
    private static HikariDataSource pool;
    private static ValkeyServer valkey;
    private static CliFixture cli;
    private static final List<JvmProcess> NODES = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        test = TestDatabase.forClass(MissedFiresBrowserIT.class);
        pool = test.pool();
        TenureSchema.migrate(pool);
        test.sql("CREATE TABLE billing (fire_key text NOT NULL, pid bigint NOT NULL, how text NOT NULL, "
                + "at timestamptz NOT NULL DEFAULT clock_timestamp())");
        valkey = ValkeyServers.standalone();
        cli = new CliFixture(test.database());
    }

    @AfterAll
    static void stop() throws Exception {
        NODES.forEach(JvmProcess::close);
        if (cli != null) {
            cli.close();
        }
        if (valkey != null) {
            valkey.close();
        }
        test.close();
    }

    @Test
    void everyNodeStoppedFor20s_fiveCatchUpsOnceEach_theOthersMissed_inTheConsoleAndTheCli() throws Exception {
        long begin = System.nanoTime();
        PostgresDatabase db = test.database();
        String pw = db.password() == null || db.password().isEmpty() ? "-" : db.password();
        for (int i = 0; i < 2; i++) {
            NODES.add(JvmProcess.start(
                    List.of(),
                    ScheduleNode.class.getName(),
                    List.of(db.jdbcUrl(), db.username(), pw, valkey.address())));
        }
        for (JvmProcess n : NODES) {
            n.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(60)));
        }
        phase(begin, "nodes ready");
        Instant s = awaitSettledSlot(Instant.now().plusSeconds(2));
        Instant p = Instant.now();
        NODES.forEach(JvmProcess::pause);
        Instant stoppedAt = Instant.now();
        Thread.sleep(STOPPED.toMillis());
        Instant r = Instant.now();
        NODES.forEach(JvmProcess::resume);

        List<String> window = new ArrayList<>();
        List<String> overdue = new ArrayList<>();
        for (Instant t = s.plusSeconds(1); t.isBefore(r); t = t.plusSeconds(1)) {
            assertThat(t).isAfterOrEqualTo(stoppedAt);
            window.add(t.toString());
            if (!t.plus(ScheduleNode.GRACE).isAfter(r)) {
                overdue.add(t.toString());
            }
        }
        List<String> current = window.subList(overdue.size(), window.size());
        List<String> newest = overdue.subList(overdue.size() - ScheduleNode.MAX_CATCH_UPS, overdue.size());
        List<String> older = overdue.subList(0, overdue.size() - ScheduleNode.MAX_CATCH_UPS);
        System.out.printf(
                "stopped from %s (slot %s settled, SIGSTOP sent at %s) to %s: %d fires due in the window, "
                        + "%d overdue at resume, %d current at resume %s%n",
                stoppedAt, s, p, r, window.size(), overdue.size(), current.size(), current);
        assertThat(window).hasSize(20);
        assertThat(overdue).hasSize(19);

        // settled: every fire of the window COMPLETED or MISSED, and the sweeper's position past the window
        Awaitility.await()
                .atMost(Timing.scaled(Duration.ofSeconds(20)))
                .pollInterval(Duration.ofMillis(200))
                .until(() ->
                        runs(window).values().stream().allMatch(st -> st.equals("COMPLETED") || st.equals("MISSED"))
                                && test.query("SELECT (swept_until >= '" + window.get(window.size() - 1)
                                                + "'::timestamptz)::text "
                                                + "FROM tenure.job_schedule WHERE job_key = 'billing'")
                                        .equals("true"));
        phase(begin, "window settled");
        Map<String, String> status = runs(window);
        Map<String, List<String>> business = business();
        Map<String, Integer> catchUpOutcomes = new HashMap<>(catchUpsExecuted());
        Map<String, Integer> catchUpsOutside = new HashMap<>(catchUpOutcomes);
        catchUpOutcomes.keySet().retainAll(window);
        catchUpsOutside.keySet().removeAll(window);
        int withBoth = 0;
        int withNeither = 0;
        List<String> caughtUp = new ArrayList<>();
        List<String> missed = new ArrayList<>();
        for (String f : window) {
            List<String> rows = business.getOrDefault(f, List.of());
            boolean isMissed = "MISSED".equals(status.get(f));
            withBoth += !rows.isEmpty() && isMissed ? 1 : 0;
            withNeither += rows.isEmpty() && !isMissed ? 1 : 0;
            if (rows.contains("catch-up")) {
                caughtUp.add(f);
            }
            if (isMissed) {
                missed.add(f);
            }
        }
        System.out.printf(
                "of the window: %d caught up %s, %d MISSED, %d run by the loops after resume, %d with both, "
                        + "%d with neither; catch-up runs per fire (nodes' output): %s; outside the window (a loop that overran "
                        + "its slot at start-up skips the next): %s%n",
                caughtUp.size(),
                caughtUp,
                missed.size(),
                current.stream()
                        .filter(f -> business.getOrDefault(f, List.of()).contains("loop"))
                        .count(),
                withBoth,
                withNeither,
                catchUpOutcomes,
                catchUpsOutside);
        assertThat(withBoth).as("fires with a business row and a MISSED record").isZero();
        assertThat(withNeither)
                .as("fires with neither a business row nor a MISSED record")
                .isZero();
        for (String f : window) {
            assertThat(business.getOrDefault(f, List.of()))
                    .as("business rows of fire %s", f)
                    .hasSizeLessThanOrEqualTo(1);
        }
        assertThat(caughtUp)
                .as("the catch-ups: the newest %d overdue fires", ScheduleNode.MAX_CATCH_UPS)
                .containsExactlyElementsOf(newest);
        assertThat(catchUpOutcomes)
                .as("catch-up runs that executed, per fire, across the nodes")
                .isEqualTo(newest.stream().collect(Collectors.toMap(f -> f, f -> 1)));
        assertThat(missed).as("MISSED: the other overdue fires").containsExactlyElementsOf(older);
        for (String f : current) {
            assertThat(business.get(f))
                    .as("the slot current at resume, run by a loop")
                    .containsExactly("loop");
        }
        String why = "not caught up: only the newest 5 overdue fires are";
        String reason = "no node ran it; " + why;
        List<TenureAdmin.MissedFire> records =
                TenureAdmin.create(pool).missedFires("billing", Duration.ofHours(1), 1000);
        List<TenureAdmin.MissedFire> summaries =
                records.stream().filter(m -> m.summary().isPresent()).toList();
        List<String> rowFires = records.stream()
                .filter(m -> m.summary().isEmpty())
                .map(TenureAdmin.MissedFire::fireKey)
                .sorted()
                .toList();
        System.out.printf(
                "MISSED records: %d rows %s, summaries %s%n",
                rowFires.size(),
                rowFires,
                summaries.stream().map(m -> m.summary().orElseThrow().line()).toList());
        assertThat(rowFires.size())
                .as("a row for each of the newest fires without a run (10 a sweep), one record for the rest")
                .isLessThanOrEqualTo(10); // unscaled: a count of rows, not a time
        assertThat(records)
                .allSatisfy(m -> assertThat(m.reason())
                        .as("a row's reason, or a summary's")
                        .satisfiesAnyOf(
                                x -> assertThat(x).isEqualTo(reason),
                                x -> assertThat(x)
                                        .matches("\\d+ fires due from \\S+ to \\S+ missed: no node ran them; "
                                                + java.util.regex.Pattern.quote(why))));
        assertThat(records.stream().mapToLong(TenureAdmin.MissedFire::fires).sum())
                .as("MISSED fires, a summary record by its fires")
                .isEqualTo(older.size());
        NODES.forEach(JvmProcess::kill); // the job's history stays as it is for the console and the CLI

        try (ConsoleServer server = TenureConsole.builder(pool)
                        .refreshEvery(Duration.ZERO)
                        .build()
                        .serve(new InetSocketAddress("127.0.0.1", 0));
                ChromiumTab tab = HeadlessChromium.find().open()) {
            tab.navigate(server.url() + "/job?key=billing");
            Map<String, List<String>> rows = fireRows(tab);
            for (String f : rowFires) {
                assertThat(rows.get(f)).as("fire list row of MISSED fire %s", f).isNotNull();
                assertThat(rows.get(f).get(0)).isEqualTo("missed");
                assertThat(rows.get(f).get(4)).isEqualTo("MISSED");
                assertThat(rows.get(f).get(8)).contains(reason);
            }
            for (TenureAdmin.MissedFire m : summaries) {
                String line = m.summary().orElseThrow().line();
                assertThat(rows.get(line))
                        .as("one fire list row for the summary %s", line)
                        .isNotNull();
                assertThat(rows.get(line).get(4)).isEqualTo("MISSED");
                assertThat(rows.get(line).get(8)).contains(why);
            }
            for (String f : newest) {
                assertThat(rows.get(f))
                        .as("fire list row of caught-up fire %s", f)
                        .isNotNull();
                assertThat(rows.get(f).get(4)).isEqualTo("COMPLETED");
                assertThat(rows.get(f).get(8))
                        .as("a caught-up fire says how late it started")
                        .containsPattern("started \\d+\\.\\d s after its fire time");
            }
            for (String f : current) {
                assertThat(rows.get(f).get(8))
                        .as("the loop's own fire was not late")
                        .doesNotContain("after its fire time");
            }
            JsonNode marks = tab.evaluate(
                    "[...document.querySelectorAll('svg.timeline .missed-mark title')]" + ".map(t => t.textContent)");
            assertThat(marks)
                    .as("the timeline's MISSED marks: one per row, one per summary (at the time it was recorded)")
                    .hasSize(rowFires.size() + summaries.size());
            for (int i = 0; i < rowFires.size(); i++) {
                assertThat(marks.get(i).asText()).startsWith(rowFires.get(i) + " · MISSED");
            }
            for (int i = 0; i < summaries.size(); i++) {
                assertThat(marks.get(rowFires.size() + i).asText())
                        .startsWith(summaries.get(i).summary().orElseThrow().line() + " · MISSED");
            }
            JsonNode bars = tab.evaluate(
                    "[...document.querySelectorAll('svg.timeline rect.run title')]" + ".map(t => t.textContent)");
            for (String f : newest) {
                assertThat(bars)
                        .as("the timeline's bar of catch-up %s", f)
                        .anySatisfy(b ->
                                assertThat(b.asText()).startsWith(f + " · ").contains("COMPLETED"));
            }
            Map<String, String> schedule = definitions(tab, "section.schedule");
            assertThat(schedule)
                    .containsEntry("schedule", "fixed-rate PT1S")
                    .containsEntry("integration", "coordinator")
                    .containsEntry("missed in the last hour", Integer.toString(older.size()));
            assertThat(schedule.get("policy")).startsWith("catch-up (newest 5");
            assertThat(schedule.get("registered by"))
                    .as("a node's default name, <host>/<pid>")
                    .matches(".+/(" + NODES.get(0).pid() + "|" + NODES.get(1).pid() + ")");
            Path target = Path.of(System.getProperty("tenure.console.target", "target"));
            tab.screenshotFullPage(target.resolve("console-missed-fires.png"));

            tab.navigate(server.url() + "/");
            JsonNode job = tab.evaluate("(() => { const a = [...document.querySelectorAll('table.jobs a')]"
                    + ".find(a => a.textContent === 'billing'); const tr = a.closest('tr'); "
                    + "return [tr.className, ...[...tr.cells].map(c => c.textContent)]; })()");
            List<String> headers = new ArrayList<>();
            tab.evaluate("[...document.querySelectorAll('table.jobs th')].map(t => t.textContent)")
                    .forEach(h -> headers.add(h.asText()));
            assertThat(job.get(0).asText()).as("the job's row is highlighted").contains("attention");
            assertThat(job.get(1 + headers.indexOf("missed (1 h)")).asText()).isEqualTo(Integer.toString(older.size()));
            assertThat(job.get(1 + headers.indexOf("last success")).asText()).startsWith("20");
            assertThat(job.get(1 + headers.indexOf("next due")).asText()).startsWith("20");
        }

        phase(begin, "console checked in Chromium");
        CliFixture.Result table = cli.run("missed", "--job", "billing", "--since", "10m");
        assertThat(table.exit()).as(table.err()).isZero();
        assertThat(table.lines().get(0)).matches("JOB +FIRE +RECORDED +SWEEPER +REASON");
        for (String f : rowFires) {
            assertThat(table.lines())
                    .as("the CLI's line of %s", f)
                    .anySatisfy(l -> assertThat(l)
                            .startsWith("billing")
                            .contains(" " + f + " ")
                            .endsWith(reason));
        }
        for (TenureAdmin.MissedFire m : summaries) {
            assertThat(table.lines())
                    .as("the CLI's line of the summary")
                    .anySatisfy(l -> assertThat(l)
                            .startsWith("billing")
                            .contains(" " + m.summary().orElseThrow().line() + " ")
                            .endsWith(why));
        }
        assertThat(table.lines()).hasSize(1 + rowFires.size() + summaries.size());
        CliFixture.Result json = cli.run("missed", "--job", "billing", "--since", "10m", "--json");
        assertThat(json.exit()).as(json.err()).isZero();
        Set<String> listed = new TreeSet<>();
        long fires = 0;
        for (JsonNode m : json.json().get("missed")) {
            assertThat(m.get("job").asText()).isEqualTo("billing");
            assertThat(m.get("reason").asText()).endsWith(why);
            assertThat(m.get("recordedAt").asText()).startsWith("20");
            listed.add(m.get("fire").asText());
            fires += m.get("fires").asLong();
        }
        assertThat(listed).containsAll(rowFires).hasSize(rowFires.size() + summaries.size());
        assertThat(fires).isEqualTo(older.size());
        phase(begin, "CLI checked");
    }

    private static void phase(long begin, String what) {
        System.out.printf("%.1f s: %s%n", (System.nanoTime() - begin) / 1e9, what);
    }

    /** Waits for a slot (at or after {@code notBefore}) that every node has settled, while less than 450 ms of it passed. */
    private static Instant awaitSettledSlot(Instant notBefore) throws InterruptedException {
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(30)).toNanos();
        while (System.nanoTime() < deadline) {
            Instant now = Instant.now();
            Instant slot = ScheduleNode.RATE.slotOf(now);
            long into = now.toEpochMilli() - slot.toEpochMilli();
            if (!slot.isBefore(notBefore)
                    && into >= 30
                    && into < 450
                    && NODES.stream()
                            .allMatch(n -> n.stdoutLines().stream()
                                    .anyMatch(l -> l.startsWith("OUTCOME " + slot + " ") && l.endsWith(" loop")))) {
                return slot;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the nodes settled no slot in time: "
                + NODES.stream().map(JvmProcess::stdoutLines).toList());
    }

    /**
     * The status of each of these fires' job_run row, MISSED for a fire that a summary record counts (fires without
     * either are left out).
     */
    private static Map<String, String> runs(List<String> fires) throws Exception {
        Map<String, String> out = new HashMap<>();
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery(
                        "SELECT fire_key, status, error FROM tenure.job_runs WHERE job_key = 'billing'")) {
            while (rs.next()) {
                String key = rs.getString(1);
                if (fires.contains(key)) {
                    out.put(key, rs.getString(2));
                }
                MissedSummary.of(key, rs.getString(3))
                        .ifPresent(m -> fires.stream()
                                .filter(f -> !Instant.parse(f).isBefore(m.first())
                                        && !Instant.parse(f).isAfter(m.last()))
                                .forEach(f -> out.put(f, "MISSED")));
            }
        }
        return out;
    }

    /** Each fire's business rows: how each was run (loop or catch-up). */
    private static Map<String, List<String>> business() throws Exception {
        Map<String, List<String>> out = new HashMap<>();
        try (Connection c = pool.getConnection();
                Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT fire_key, how FROM billing ORDER BY at")) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getString(1), k -> new ArrayList<>()).add(rs.getString(2));
            }
        }
        return out;
    }

    /** How many catch-ups executed each fire, from every node's output ({@code OUTCOME <fire> EXECUTED catch-up}). */
    private static Map<String, Integer> catchUpsExecuted() {
        Map<String, Integer> out = new HashMap<>();
        for (JvmProcess n : NODES) {
            for (String l : n.stdoutLines()) {
                String[] w = l.split(" ");
                if (w.length == 4 && w[0].equals("OUTCOME") && w[2].equals("EXECUTED") && w[3].equals("catch-up")) {
                    out.merge(w[1], 1, Integer::sum);
                }
            }
        }
        return out;
    }

    /** The fire list as the page shows it: fire key → [row class, fire, node, epoch, status, duration, attempt, started, story]. */
    private static Map<String, List<String>> fireRows(ChromiumTab tab) {
        JsonNode rows = tab.evaluate("[...document.querySelectorAll('table.runs tbody tr')]"
                + ".map(tr => [tr.className, ...[...tr.cells].map(c => c.textContent)])");
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (JsonNode r : rows) {
            List<String> cells = new ArrayList<>();
            r.forEach(c -> cells.add(c.asText()));
            out.put(cells.get(1), cells);
        }
        return out;
    }

    /** The {@code dt}/{@code dd} pairs of the section {@code selector} finds. */
    private static Map<String, String> definitions(ChromiumTab tab, String selector) {
        JsonNode pairs = tab.evaluate("[...document.querySelectorAll('" + selector + " dt')]"
                + ".map(d => [d.textContent, d.nextElementSibling.textContent])");
        Map<String, String> out = new LinkedHashMap<>();
        pairs.forEach(p -> out.put(p.get(0).asText(), p.get(1).asText()));
        return out;
    }
}
