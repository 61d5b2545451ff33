package dev.tenure.examples.invoicing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.console.ConsoleServer;
import dev.tenure.console.TenureConsole;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, acceptance 2, the fleet-down tour: three instances of a Boot application ({@link InvoicingApplication}: two
 * {@code @Scheduled(cron = "*&#47;2 * * * * *") @Coordinated @Transactional} jobs writing an invoice per fire with
 * {@code JdbcTemplate}, one catching missed fires up, one skipping them) run against real Postgres and Valkey; then the
 * whole fleet stops (SIGKILL, SIGKILL, SIGTERM) for {@code -Dtour.outage} (default 20 s; the tour is
 * {@code -Dtour.outage=PT5M}), and one instance comes back.
 *
 * <p>Before it comes back, with no process of the application running: the console (its job list and job pages over
 * HTTP and in a headless Chromium, screenshots in {@code target/fleet-down-tour/}) and the CLI's {@code schedules} show
 * each job's overdue fires by the database clock, counted and with since when, in red. After it comes back: its log
 * says a few lines per job about the outage and no stack trace; every slot of each job from its first to its last is
 * COMPLETED once or recorded MISSED (a row or counted in a summary record), never both, never twice, with one invoice
 * exactly for each COMPLETED one; and the console's buckets add up to those slots. Prints the figures: the overdue
 * counts shown, the lines logged, the buckets, how long the return took to account for the outage.
 */
class FleetDownTourIT {

    private static final Duration TTL = Duration.ofSeconds(4);
    /**
     * The policy's grace, {@code -Dtour.grace} (the starter's default is 5 s). With a grace longer than the time a fire
     * takes to complete, a fleet stopped just after a fire completed leaves {@code next_due_at} on that fire: a console
     * or CLI that cannot walk a Spring cron then shows {@code 0+}; these have the auto-configuration's
     * {@code SpringCronScheduleReader} on their class path and count exactly.
     */
    private static final Duration GRACE = Duration.parse(System.getProperty("tour.grace", "PT2S"));

    private static final Duration SLOT = Duration.ofSeconds(2);
    private static final int MAX_CATCH_UPS = 3;
    private static final String CATCH_UP = "invoicing-catch-up";
    private static final String SKIP = "invoicing-skip";
    private static final List<String> JOBS = List.of(CATCH_UP, SKIP);
    /** How long the whole fleet is down: {@code -Dtour.outage=PT5M} for the tour. */
    private static final Duration OUTAGE = Duration.parse(System.getProperty("tour.outage", "PT20S"));

    /** The console and the CLI are read this long before the outage ends (they take a few seconds). */
    private static final Duration READING =
            OUTAGE.dividedBy(2).compareTo(Duration.ofSeconds(10)) < 0 ? OUTAGE.dividedBy(2) : Duration.ofSeconds(10);

    private static final Path OUT = Path.of("target", "fleet-down-tour");
    private static final Pattern LOG_LINE =
            Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (TRACE|DEBUG|INFO|WARN|ERROR)\\s");
    private static final Pattern STACK_TRACE = Pattern.compile(
            "^(\\s+at |Caused by: |\\s+\\.\\.\\. \\d+ more|[a-z][\\w.$]*\\.[A-Z]\\w*(Exception|Error)\\b)");

    private static PostgresDatabase db;
    private static ValkeyServer valkey;
    private final Map<String, JvmProcess> instances = new LinkedHashMap<>();

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(FleetDownTourIT.class);
        valkey = ValkeyServers.standalone();
    }

    @AfterAll
    static void stop() {
        valkey.close();
        db.close();
    }

    /** The overdue fires of a job by the ledger's definition, walked here: how many, the oldest's time. */
    record Overdue(long count, Instant since) {}

    @Test
    void aStoppedFleetShowsItsOverdueFires_andTheReturnAccountsForEverySlotInAFewLines() throws Exception {
        long began = System.currentTimeMillis();
        Files.createDirectories(OUT);
        JvmProcess back;
        long restartAt;
        long readyAt;
        long accountedAt;
        Map<String, Overdue[]> expected = new LinkedHashMap<>();
        Map<String, ConsoleReading.Shown> console = new LinkedHashMap<>();
        Map<String, ConsoleReading.Shown> page = new LinkedHashMap<>();
        Map<String, ConsoleReading.Shown> cli = new LinkedHashMap<>();
        SoftAssertions softly = new SoftAssertions();
        try (ConsoleServer server = TenureConsole.builder(db.dataSource())
                .refreshEvery(Duration.ZERO)
                .build()
                .serve(new InetSocketAddress("127.0.0.1", 0))) {
            try {
                for (String name : List.of("a", "b", "c")) {
                    start(name);
                }
                for (String name : List.of("a", "b", "c")) {
                    awaitReady(name);
                }
                log(began, "a, b, c ready");
                await().atMost(Timing.scaled(Duration.ofSeconds(30)))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> completed(CATCH_UP) >= 2 && completed(SKIP) >= 2);

                // the whole fleet stops
                instances.get("b").kill();
                instances.get("c").kill();
                JvmProcess a = instances.get("a");
                a.terminate();
                assertThat(a.waitFor(Timing.scaled(Duration.ofSeconds(30))))
                        .as("a stopped instance exits")
                        .isPresent();
                long downAt = System.currentTimeMillis();
                log(began, "a, b, c stopped; the fleet is down for " + OUTAGE);
                // before any instance returns, in the outage's last seconds: what the console and the CLI say
                sleepUntil(downAt + OUTAGE.minus(READING).toMillis());
                for (String job : JOBS) {
                    expected.put(job, new Overdue[] {expectedOverdue(job), null});
                }
                String list = ConsoleReading.get(server.url() + "/");
                String dom = ConsoleReading.dom(server.url() + "/");
                long redInList =
                        ConsoleReading.screenshot(server.url() + "/", OUT.resolve("console-before-restart.png"));
                Map<String, String> jobPages = new LinkedHashMap<>();
                for (String job : JOBS) {
                    jobPages.put(job, ConsoleReading.get(server.url() + "/job?key=" + job));
                }
                ConsoleReading.screenshot(
                        server.url() + "/job?key=" + SKIP, OUT.resolve("console-before-restart-" + SKIP + ".png"));
                log(began, "console read");
                String[] schedules = ConsoleReading.cli(db, "schedules");
                for (String job : JOBS) {
                    expected.get(job)[1] = expectedOverdue(job);
                }
                Files.writeString(OUT.resolve("schedules-before-restart.txt"), schedules[1] + schedules[2]);
                log(began, "console and CLI read");
                checkBeforeRestart(
                        softly, list, dom, jobPages, schedules, redInList, server, expected, console, page, cli);
                sleepUntil(downAt + OUTAGE.toMillis());

                // one instance returns
                restartAt = System.currentTimeMillis();
                start("a2");
                awaitReady("a2");
                readyAt = System.currentTimeMillis();
                back = instances.get("a2");
                Instant accountTo =
                        evenSecondAfter(Instant.ofEpochMilli(readyAt).plus(GRACE));
                await().atMost(Timing.scaled(Duration.ofSeconds(60)))
                        .pollInterval(Duration.ofMillis(250))
                        .until(() -> accountedUpTo(accountTo));
                accountedAt = System.currentTimeMillis();
                log(began, "a2 back; every slot up to " + accountTo + " accounted for");
                back.terminate();
                assertThat(back.waitFor(Timing.scaled(Duration.ofSeconds(30))))
                        .as("a2 exits")
                        .isPresent();
                log(began, "a2 stopped");
            } finally {
                instances.forEach(FleetDownTourIT::keepLog);
            }
            List<String> output = new ArrayList<>(back.stdoutLines());
            output.addAll(back.stderrLines());
            instances.values().forEach(JvmProcess::close);

            checkTheReturn(softly, output, server, restartAt, readyAt, accountedAt, expected, console, page, cli);
        } finally {
            instances.values().forEach(JvmProcess::close);
        }
        log(began, "done");
        softly.assertAll();
    }

    private void checkBeforeRestart(
            SoftAssertions softly,
            String list,
            String dom,
            Map<String, String> jobPages,
            String[] schedules,
            long redInList,
            ConsoleServer server,
            Map<String, Overdue[]> expected,
            Map<String, ConsoleReading.Shown> console,
            Map<String, ConsoleReading.Shown> page,
            Map<String, ConsoleReading.Shown> cli)
            throws IOException, InterruptedException {
        softly.assertThat(schedules[0])
                .as("schedules' exit code: " + schedules[2])
                .isEqualTo("0");
        for (String job : JOBS) {
            Overdue low = expected.get(job)[0];
            Overdue high = expected.get(job)[1];
            for (String html : List.of(list, dom)) {
                ConsoleReading.JobRow row = ConsoleReading.jobRow(html, job);
                ConsoleReading.Shown shown = ConsoleReading.Shown.parse(row.overdue());
                console.put(job, shown);
                checkShown(softly, "the job list's overdue cell of " + job, shown, low, high);
                softly.assertThat(row.rowClass())
                        .as("the job list's row of %s", job)
                        .contains("attention");
                softly.assertThat(row.overdueClass())
                        .as("the job list's overdue cell of %s is red", job)
                        .contains("alert");
            }
            String[] dd = ConsoleReading.overdueNow(jobPages.get(job)).orElse(new String[] {"0 (no line)", ""});
            softly.assertThat(dd[0])
                    .as("the job page's overdue line of %s", job)
                    .isNotEqualTo("0 (no line)");
            ConsoleReading.Shown onPage = ConsoleReading.Shown.parse(dd[0]);
            page.put(job, onPage);
            checkShown(softly, "the job page's overdue line of " + job, onPage, low, high);
            softly.assertThat(dd[0]).as("the job page of %s", job).contains("overdue since");
            softly.assertThat(dd[1])
                    .as("the job page's overdue line of %s is red", job)
                    .contains("alert");

            String line = schedules[1]
                    .lines()
                    .filter(l -> l.startsWith("overdue: " + job + ": "))
                    .findFirst()
                    .orElse("overdue: " + job + ": 0 (no line under the table)");
            ConsoleReading.Shown inCli =
                    ConsoleReading.Shown.parse(line.substring(("overdue: " + job + ": ").length()));
            cli.put(job, inCli);
            checkShown(softly, "schedules' overdue line of " + job, inCli, low, high);
        }
        softly.assertThat(ConsoleReading.get(server.url() + "/static/console.css"))
                .as("the console's red")
                .contains("td.alert, dd.alert { color: #b4341c");
        softly.assertThat(redInList)
                .as("pixels of the console's red in the job list's screenshot")
                .isGreaterThan(20);
    }

    /**
     * The count shown is the ledger's, from the time of the read: exact (the Spring cron reader is on this class path)
     * and between the counts walked before and after it; since when is the oldest overdue fire.
     */
    private static void checkShown(
            SoftAssertions softly, String what, ConsoleReading.Shown shown, Overdue low, Overdue high) {
        System.out.printf(
                "%s: '%s' (the ledger: %d..%d since %s)%n", what, shown.text(), low.count(), high.count(), low.since());
        softly.assertThat(shown.count()).as("%s: '%s'", what, shown.text()).isPositive();
        softly.assertThat(shown.exact())
                .as("%s: '%s' counted exactly with the spring-cron reader of the class path", what, shown.text())
                .isTrue();
        if (shown.exact()) {
            softly.assertThat(shown.count()).as("%s: '%s'", what, shown.text()).isBetween(low.count(), high.count());
        } else {
            softly.assertThat(shown.count()).as("%s: '%s'", what, shown.text()).isLessThanOrEqualTo(high.count());
        }
        softly.assertThat(shown.since()).as("%s: since when", what).isEqualTo(low.since());
    }

    private void checkTheReturn(
            SoftAssertions softly,
            List<String> output,
            ConsoleServer server,
            long restartAt,
            long readyAt,
            long accountedAt,
            Map<String, Overdue[]> expected,
            Map<String, ConsoleReading.Shown> console,
            Map<String, ConsoleReading.Shown> page,
            Map<String, ConsoleReading.Shown> cli)
            throws Exception {
        List<String> logLines =
                output.stream().filter(l -> LOG_LINE.matcher(l).find()).toList();
        List<String> traces =
                output.stream().filter(l -> STACK_TRACE.matcher(l).find()).toList();
        System.out.printf(
                "outage %s; a2 ready %d ms after its start, every slot accounted for %d ms after ready; it logged %d "
                        + "lines (%d WARN, %d ERROR), %d of them from Tenure, %d stack trace lines%n",
                OUTAGE,
                readyAt - restartAt,
                accountedAt - readyAt,
                logLines.size(),
                logLines.stream().filter(l -> l.matches(".*\\sWARN\\s.*")).count(),
                logLines.stream().filter(l -> l.matches(".*\\sERROR\\s.*")).count(),
                logLines.stream().filter(l -> l.contains("dev.tenure")).count(),
                traces.size());
        logLines.stream()
                .filter(l -> l.contains("dev.tenure") || l.matches(".*\\s(WARN|ERROR)\\s.*"))
                .forEach(l -> System.out.println("  a2: " + l));
        softly.assertThat(traces).as("stack trace lines of a2").isEmpty();
        softly.assertThat(logLines).as("ERROR lines of a2").noneMatch(l -> l.matches(".*\\sERROR\\s.*"));
        for (String job : JOBS) {
            // what it logs about the job's fires (not the start-up line that lists its scheduled jobs)
            List<String> about = logLines.stream()
                    .filter(l -> l.contains(job) && !l.contains("scheduled job(s):"))
                    .toList();
            softly.assertThat(about)
                    .as("a2's log lines about the fires of %s", job)
                    .hasSizeBetween(1, 4);
            softly.assertThat(about)
                    .as("a2's WARN lines about the fires of %s", job)
                    .filteredOn(l -> l.matches(".*\\sWARN\\s.*"))
                    .hasSizeBetween(1, 2);
        }

        for (String job : JOBS) {
            SlotAccount a = SlotAccount.read(db.dataSource(), job, SLOT);
            List<Instant> slots = a.slots(a.first(), a.last());
            Map<String, Long> buckets = ConsoleReading.buckets(ConsoleReading.get(server.url() + "/job?key=" + job));
            long sum = buckets.entrySet().stream()
                    .filter(e -> !e.getKey().equals("fires"))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
            long caughtUp =
                    a.completed.keySet().stream().filter(s -> isCatchUp(job, s)).count();
            System.out.printf(
                    "%s: %d slots %s..%s: %d COMPLETED (%d of them caught up after the return), %d MISSED (%d records "
                            + "of one fire, %d summary records: %s); overdue before the return: console '%s', job page "
                            + "'%s', CLI '%s', the ledger %d..%d; the console's buckets %s%n",
                    job,
                    slots.size(),
                    a.first(),
                    a.last(),
                    a.completed.size(),
                    caughtUp,
                    a.missedFires(),
                    a.missed.size(),
                    a.summaries.size(),
                    a.summaries.stream()
                            .map(s -> s.fires() + " " + s.first() + ".." + s.last())
                            .toList(),
                    console.get(job).text(),
                    page.get(job).text(),
                    cli.get(job).text(),
                    expected.get(job)[0].count(),
                    expected.get(job)[1].count(),
                    buckets);

            // once: every slot from the first to the last COMPLETED once or MISSED once, a summary counting no slot
            // twice
            for (Instant s : slots) {
                softly.assertThat(a.accounted(s))
                        .as("%s slot %s: COMPLETED runs, MISSED records and summaries that count it", job, s)
                        .isEqualTo(1);
                softly.assertThat(a.invoices.getOrDefault(s, 0))
                        .as("%s slot %s: invoices (COMPLETED: %s)", job, s, a.completed.containsKey(s))
                        .isEqualTo(a.completed.containsKey(s) ? 1 : 0);
            }
            a.summaries.forEach(s -> softly.assertThat(s.fires())
                    .as(
                            "%s: the summary record %s..%s counts its slots without a row of their own",
                            job, s.first(), s.last())
                    .isEqualTo(a.uncovered(s)));
            softly.assertThat(a.unsettled)
                    .as("%s: rows neither COMPLETED nor MISSED", job)
                    .isEmpty();
            softly.assertThat(a.invoices.keySet())
                    .as("%s: invoices of slots outside %s..%s", job, a.first(), a.last())
                    .allMatch(s -> !s.isBefore(a.first()) && !s.isAfter(a.last()));

            // the console's buckets add up to the fires, and the fires to the slots
            softly.assertThat(sum)
                    .as("%s: the buckets add up to the fires %s", job, buckets)
                    .isEqualTo(buckets.get("fires"));
            softly.assertThat(buckets.get("fires"))
                    .as("%s: the console's fires are the slots %s..%s", job, a.first(), a.last())
                    .isEqualTo(slots.size());
            softly.assertThat(buckets.get("completed") + buckets.get("caught-up"))
                    .as("%s: completed and caught up after a lost attempt", job)
                    .isEqualTo(a.completed.size());
            softly.assertThat(buckets.get("missed")).as("%s: missed fires", job).isEqualTo(a.missedFires());
            softly.assertThat(buckets.get("running")).as("%s: running", job).isZero();
        }
    }

    /** Whether the fire ran more than a slot after its time (a catch-up). */
    private boolean isCatchUp(String job, Instant slot) {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT started_at > ?::timestamptz + interval '2 seconds' "
                        + "FROM tenure.job_runs WHERE job_key = ? AND fire_key = ?")) {
            ps.setString(1, slot.toString());
            ps.setString(2, job);
            ps.setString(3, slot.toString());
            try (ResultSet r = ps.executeQuery()) {
                return r.next() && r.getBoolean(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The fires of {@code job} overdue now by the ledger's definition, walked here with the database clock: the slots
     * after the account's {@code swept_until} due more than the grace ago, without a COMPLETED, FAILED or MISSED row.
     */
    private Overdue expectedOverdue(String job) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            Instant sweptUntil;
            Instant now;
            Duration grace;
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT swept_until, clock_timestamp(), grace_ms FROM tenure.job_schedule WHERE job_key = ?")) {
                ps.setString(1, job);
                try (ResultSet r = ps.executeQuery()) {
                    assertThat(r.next()).as("the schedule of %s", job).isTrue();
                    sweptUntil = r.getTimestamp(1).toInstant();
                    now = r.getTimestamp(2).toInstant();
                    grace = Duration.ofMillis(r.getLong(3));
                }
            }
            Set<String> settled = new HashSet<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT fire_key FROM tenure.job_runs WHERE job_key = ? "
                    + "AND status IN ('COMPLETED', 'FAILED', 'MISSED')")) {
                ps.setString(1, job);
                try (ResultSet r = ps.executeQuery()) {
                    while (r.next()) {
                        settled.add(r.getString(1));
                    }
                }
            }
            long count = 0;
            Instant since = null;
            for (Instant s = evenSecondAfter(sweptUntil); s.isBefore(now.minus(grace)); s = s.plus(SLOT)) {
                if (!settled.contains(s.toString())) {
                    count++;
                    since = since == null ? s : since;
                }
            }
            return new Overdue(count, since);
        }
    }

    /** Whether every slot of each job from its first to {@code to} is COMPLETED or recorded MISSED. */
    private boolean accountedUpTo(Instant to) throws SQLException {
        for (String job : JOBS) {
            SlotAccount a = SlotAccount.read(db.dataSource(), job, SLOT);
            if (a.slots(a.first(), to).stream().anyMatch(s -> a.accounted(s) == 0)) {
                return false;
            }
        }
        return true;
    }

    private long completed(String job) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT count(*) FROM tenure.job_runs WHERE job_key = ? AND status = 'COMPLETED'")) {
            ps.setString(1, job);
            try (ResultSet r = ps.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    private void start(String name) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.datasource.url=" + db.jdbcUrl(),
                "--tenure.valkey.addresses=" + valkey.address(),
                "--invoicing.instance=" + name,
                "--invoicing.work=100ms",
                "--spring.flyway.locations=classpath:invoicing/migration",
                "--spring.main.banner-mode=off",
                "--spring.task.scheduling.pool.size=2",
                "--tenure.lease.ttl=" + TTL.toSeconds() + "s",
                "--tenure.missed-fires.grace=" + GRACE.toMillis() + "ms",
                "--tenure.missed-fires.sweep-interval=500ms",
                "--tenure.missed-fires.max-catch-ups=" + MAX_CATCH_UPS,
                "--logging.level.dev.tenure=info", // Tenure's INFO lines too: the return is told in a few lines
                "--spring.main.web-application-type=none"));
        if (db.username() != null) {
            args.add("--spring.datasource.username=" + db.username());
        }
        if (db.password() != null) {
            args.add("--spring.datasource.password=" + db.password());
        }
        instances.put(
                name,
                JvmProcess.start(
                        List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), InvoicingApplication.class.getName(), args));
    }

    private void awaitReady(String name) {
        instances.get(name).awaitStdoutLine(l -> l.startsWith("READY "), Timing.scaled(Duration.ofSeconds(120)));
    }

    /** Keeps an instance's output in target/fleet-down-tour. */
    private static void keepLog(String name, JvmProcess p) {
        try {
            List<String> all = new ArrayList<>(p.stdoutLines());
            all.add("---- stderr");
            all.addAll(p.stderrLines());
            Files.write(OUT.resolve(name + ".log"), all);
        } catch (IOException | RuntimeException e) {
            System.out.println("could not keep the output of " + name + ": " + e);
        }
    }

    private static void log(long began, String what) {
        System.out.printf("%+.1f s: %s%n", (System.currentTimeMillis() - began) / 1000.0, what);
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long ms = epochMillis - System.currentTimeMillis();
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    /** The first even second strictly after {@code t}. */
    private static Instant evenSecondAfter(Instant t) {
        long s = t.getEpochSecond() + 1;
        return Instant.ofEpochSecond(s % 2 == 0 ? s : s + 1);
    }
}
