package dev.tenure.examples.rolling;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3 of "schedules are data": a rolling deploy of three instances of a Boot application
 * ({@link RollingApplication}) from v1 to v2, which changes the cron of {@code report} (every 3 s to every 2 s), adds
 * {@code audit} and removes {@code legacy}; Valkey and Postgres real. Each v1 instance gets SIGTERM while it holds a
 * fire, and a v2 instance replaces it; b stops with a 200 ms shutdown phase, so its fire is abandoned and taken over
 * rather than finished. Then {@code legacy}, which no live instance has any more, is retired (retire-after 6 s).
 *
 * <p>Asserted from the ledger and the business table: every slot of {@code report} v1 from the window's start until
 * v1's {@code valid_until}, of v2 from its {@code valid_from} to the window's end, of {@code audit} from its
 * registration, and of {@code legacy} until its RETIRED span, has one row or one MISSED record with why, never both;
 * legacy's fires after the last v1 instance exited are MISSED because no live process has the job. Nothing ran twice;
 * no row and no MISSED record is of a fire that no version in force had (v1 slots after v2 began may be run by a v1
 * instance still running, once). Legacy ends RETIRED and leaves health component {@code tenureFires} (over HTTP from
 * a v2 instance) and {@link TenureAdmin#overdueOrMissed}. {@code job_schedule_version} holds both versions of report,
 * v1 ending where v2 begins, and the console's schedule view ({@link TenureAdmin#schedule}) shows v2 with v1 as the
 * replaced schedule, replaced at that instant. Prints the counts, the MISSED reasons and how each stop handed its
 * fire over.
 */
class RollingDeployIT {

    private static final Duration TTL = Duration.ofSeconds(3);
    private static final Duration GRACE = Duration.ofSeconds(1);
    private static final Duration RETIRE_AFTER = Duration.ofSeconds(6);
    private static final Duration WORK = Duration.ofMillis(800);
    private static final String REPORT = "report";
    private static final String LEGACY = "legacy";
    private static final String AUDIT = "audit";
    private static final String ORPHANED = "no live process has registered the job since";

    private static PostgresDatabase db;
    private static ValkeyServer valkey;
    private final Map<String, JvmProcess> instances = new LinkedHashMap<>();

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(RollingDeployIT.class);
        valkey = ValkeyServers.standalone();
    }

    @AfterAll
    static void stop() {
        valkey.close();
        db.close();
    }

    /** A BEGIN line: instance {@code name} holds {@code slot} of {@code job} since {@code at} (epoch millis). */
    record Begin(String job, Instant slot, String name, long at) {
        static Optional<Begin> parse(String line) {
            String[] p = line.split(" ");
            return line.startsWith("BEGIN ") && p.length == 5
                    ? Optional.of(new Begin(p[1], Instant.parse(p[2]), p[3], Long.parseLong(p[4])))
                    : Optional.empty();
        }
    }

    /** A step of the roll: {@code name} got SIGTERM at {@code termAt} while it held {@code held}, and exited at {@code exitAt}. */
    record Stop(String name, Begin held, long termAt, long exitAt, String replacement) {}

    /** A version of a schedule as {@code job_schedule_version} holds it. */
    record Version(int version, String expression, Instant from, Instant until) {}

    @Test
    void everyFireOfEveryVersionRunsOnceOrIsRecorded_throughARollingDeploy() throws Exception {
        long began = System.currentTimeMillis();
        List<Stop> stops = new ArrayList<>();
        List<String> output = new ArrayList<>();
        Instant windowStart;
        Instant windowEnd;
        String healthAfter;
        int v2Port;
        try {
            for (String name : List.of("a", "b", "c")) {
                start(name, "v1");
            }
            for (String name : List.of("a", "b", "c")) {
                awaitReady(name);
            }
            long ready = System.currentTimeMillis();
            log(began, "a, b, c ready");
            windowStart = slotAfter(Instant.now().plusSeconds(1), 6);
            sleepUntil(windowStart.plusSeconds(5));

            for (String old : List.of("a", "b", "c")) {
                Begin held = awaitBeginOn(old, System.currentTimeMillis());
                Thread.sleep(300); // inside its transaction: fenced, working
                JvmProcess stopping = instances.get(old);
                stopping.terminate(); // SIGTERM: Boot's graceful shutdown
                long termAt = System.currentTimeMillis();
                String replacement = old + "2";
                start(replacement, "v2"); // the orchestrator starts the new version's instance meanwhile
                assertThat(stopping.waitFor(Timing.scaled(Duration.ofSeconds(30))))
                        .as("a stopped instance exits")
                        .isPresent();
                stops.add(new Stop(old, held, termAt, System.currentTimeMillis(), replacement));
                awaitReady(replacement);
                log(began, old + " stopped, " + replacement + " ready");
            }
            long rolled = System.currentTimeMillis();
            Instant lastV1Exit = Instant.ofEpochMilli(stops.get(2).exitAt());
            windowEnd = slotAfter(lastV1Exit.plusSeconds(4), 6);
            v2Port = port("c2");

            // legacy: its fires after the last v1 instance are recorded MISSED, then it is retired
            long deadline =
                    System.nanoTime() + Timing.scaled(Duration.ofSeconds(60)).toNanos();
            while (!legacyRetiredAndSwept()) {
                assertThat(System.nanoTime() - deadline < 0)
                        .as("legacy is retired and swept up to its retirement in time")
                        .isTrue();
                Thread.sleep(300);
            }
            long retired = System.currentTimeMillis();
            log(began, "legacy retired");
            sleepUntil(windowEnd.plus(GRACE).plusMillis(500));
            awaitSettled(windowStart, windowEnd, deadline);
            healthAfter = health(v2Port);
            System.out.printf(
                    "timings: v1 ready %d ms, rolled %d ms after, legacy's retirement seen %d ms after the last v1 "
                            + "exit, settled at %d ms%n",
                    ready - began, rolled - ready, retired - stops.get(2).exitAt(), System.currentTimeMillis() - began);
        } finally {
            for (Map.Entry<String, JvmProcess> e : instances.entrySet()) {
                output.addAll(e.getValue().stdoutLines());
                keepLog(e.getKey(), e.getValue());
            }
            instances.values().forEach(JvmProcess::close);
        }

        List<Version> report = versions(REPORT);
        List<Version> audit = versions(AUDIT);
        Instant reportV2From = report.get(report.size() - 1).from();
        Instant retiredFrom =
                instant("SELECT from_at FROM tenure.job_schedule_span WHERE job_key = 'legacy' AND state = 'RETIRED'");
        Instant lastV1Exit = Instant.ofEpochMilli(stops.get(2).exitAt());
        Map<String, List<Instant>> slots = new LinkedHashMap<>();
        slots.put(REPORT + " v1", slots(windowStart, report.get(0).until(), 3, false));
        slots.put(REPORT + " v2", slots(reportV2From, windowEnd, 2, true));
        slots.put(LEGACY, slots(windowStart, retiredFrom, 2, false));
        slots.put(AUDIT, slots(audit.get(0).from(), windowEnd, 2, true));
        Map<String, Map<String, List<String>>> rows = new HashMap<>(); // job -> slot -> "instance/version"
        Map<String, Map<String, List<String>>> missed = new HashMap<>(); // job -> fire key -> reasons
        for (String job : List.of(REPORT, LEGACY, AUDIT)) {
            rows.put(job, grouped("SELECT slot, instance || '/' || version FROM fire WHERE job = ?", job));
            missed.put(
                    job,
                    grouped(
                            "SELECT fire_key, coalesce(error, '') FROM tenure.job_runs WHERE job_key = ? "
                                    + "AND status = 'MISSED'",
                            job));
        }
        List<Begin> begins =
                output.stream().map(Begin::parse).flatMap(Optional::stream).toList();
        printSummary(report, audit, retiredFrom, slots, rows, missed, stops, begins, output);
        System.out.printf(
                "legacy retired %d ms after the last v1 instance exited (retire-after %s)%n",
                Duration.between(lastV1Exit, retiredFrom).toMillis(), RETIRE_AFTER);

        SoftAssertions softly = new SoftAssertions();
        // the ledger (and the console, which reads it) holds both versions of report, the second from the database's
        // instant
        softly.assertThat(report).as("report's versions").hasSize(2);
        softly.assertThat(report.get(0).expression()).isEqualTo("*/3 * * * * * (UTC)");
        softly.assertThat(report.get(1).expression()).isEqualTo("*/2 * * * * * (UTC)");
        softly.assertThat(report.get(0).until()).as("v1 ends where v2 begins").isEqualTo(reportV2From);
        softly.assertThat(report.get(1).until()).as("v2 is the current version").isNull();
        TenureAdmin admin = TenureAdmin.create(db.dataSource());
        TenureAdmin.ScheduleState console = admin.schedule(REPORT).orElseThrow();
        softly.assertThat(console.kind() + " " + console.expression()).isEqualTo("spring-cron */2 * * * * * (UTC)");
        softly.assertThat(console.previousSchedule())
                .as("the console's replaced schedule")
                .isEqualTo("spring-cron */3 * * * * * (UTC)");
        softly.assertThat(console.changedAt()).as("the console's replaced at").isEqualTo(reportV2From);

        // every fire of every version: one row or one MISSED record with why, never both, never neither
        for (Map.Entry<String, List<Instant>> e : slots.entrySet()) {
            String job = e.getKey().split(" ")[0];
            softly.assertThat(e.getValue()).as("slots of %s", e.getKey()).isNotEmpty();
            for (Instant s : e.getValue()) {
                List<String> r = rows.get(job).getOrDefault(s.toString(), List.of());
                List<String> m = missed.get(job).getOrDefault(s.toString(), List.of());
                softly.assertThat(r.size() + m.size())
                        .as("%s slot %s: rows %s, MISSED %s", e.getKey(), s, r, m)
                        .isEqualTo(1);
                m.forEach(why -> softly.assertThat(why)
                        .as("why %s %s was missed", job, s)
                        .isNotBlank());
            }
        }
        // nothing ran twice, nothing ran off its schedule
        rows.forEach((job, bySlot) -> bySlot.forEach((slot, r) ->
                softly.assertThat(r).as("rows of %s slot %s", job, slot).hasSizeLessThanOrEqualTo(1)));
        rows.get(REPORT).forEach((slot, r) -> {
            long sec = Instant.parse(slot).getEpochSecond();
            boolean v1Slot = sec % 3 == 0;
            boolean v2Slot = sec % 2 == 0 && !Instant.parse(slot).isBefore(reportV2From);
            softly.assertThat(v1Slot || v2Slot)
                    .as("report row %s %s is a slot of a version in force (nothing invented)", slot, r)
                    .isTrue();
            if (v1Slot && !v2Slot && !Instant.parse(slot).isBefore(reportV2From)) {
                softly.assertThat(r)
                        .as("a v1 slot after v2 began is run only by a v1 instance still running")
                        .allMatch(x -> x.endsWith("/v1"));
            }
        });
        rows.get(LEGACY)
                .forEach((slot, r) -> softly.assertThat(Instant.parse(slot))
                        .as("legacy row %s %s: on its schedule, before the last v1 instance exited", slot, r)
                        .matches(t -> t.getEpochSecond() % 2 == 0)
                        .isBefore(lastV1Exit));
        rows.get(AUDIT)
                .forEach((slot, r) -> softly.assertThat(Instant.parse(slot))
                        .as("audit row %s %s: on its schedule, once registered", slot, r)
                        .matches(t -> t.getEpochSecond() % 2 == 0)
                        .isAfterOrEqualTo(audit.get(0).from()));
        // no MISSED record of a fire that no version had, none for a fire that has a row
        for (String job : List.of(REPORT, LEGACY, AUDIT)) {
            missed.get(job).forEach((key, whys) -> {
                Optional<Instant> t = parsed(key);
                boolean scheduled = t.isPresent()
                        && inForce(
                                job,
                                t.get(),
                                reportV2From,
                                retiredFrom,
                                audit.get(0).from());
                softly.assertThat(scheduled)
                        .as("MISSED %s %s %s is a fire of a version in force", job, key, whys)
                        .isTrue();
                softly.assertThat(rows.get(job))
                        .as("rows of %s MISSED %s", job, key)
                        .doesNotContainKey(key);
            });
        }
        // legacy's fires after the last v1 instance: nobody could catch them up, and the record says so
        for (Instant s : slots.get(LEGACY)) {
            if (s.isAfter(lastV1Exit)) {
                softly.assertThat(missed.get(LEGACY).getOrDefault(s.toString(), List.of()))
                        .as("legacy %s after the last v1 instance exited", s)
                        .singleElement()
                        .asString()
                        .contains(ORPHANED);
            }
        }
        // then legacy is retired and leaves the health check
        softly.assertThat(text("SELECT state FROM tenure.job_schedule WHERE job_key = 'legacy'"))
                .isEqualTo("RETIRED");
        softly.assertThat(healthAfter)
                .as("health component tenureFires of c2 after the retirement")
                .contains("\"summary\"")
                .doesNotContain("\"" + LEGACY + "\"");
        softly.assertThat(admin.overdueOrMissed(Duration.ofHours(1), 50))
                .as("TenureAdmin.overdueOrMissed after the retirement")
                .noneMatch(s -> s.jobKey().equals(LEGACY));
        softly.assertAll();
    }

    /** The status of a fire's run row, with the start of its error. */
    private String runRow(String job, String fireKey) {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT status || coalesce(': ' || left(error, 80), '') FROM tenure.job_runs "
                                + "WHERE job_key = ? AND fire_key = ?")) {
            ps.setString(1, job);
            ps.setString(2, fireKey);
            try (ResultSet r = ps.executeQuery()) {
                return r.next() ? r.getString(1) : "none";
            }
        } catch (SQLException e) {
            return "unreadable: " + e.getMessage();
        }
    }

    private void printSummary(
            List<Version> report,
            List<Version> audit,
            Instant retiredFrom,
            Map<String, List<Instant>> slots,
            Map<String, Map<String, List<String>>> rows,
            Map<String, Map<String, List<String>>> missed,
            List<Stop> stops,
            List<Begin> begins,
            List<String> output) {
        report.forEach(v -> System.out.printf(
                "report version %d: %s from %s until %s%n", v.version(), v.expression(), v.from(), v.until()));
        System.out.printf(
                "audit registered %s; legacy retired from %s%n", audit.get(0).from(), retiredFrom);
        for (Map.Entry<String, List<Instant>> e : slots.entrySet()) {
            String job = e.getKey().split(" ")[0];
            long run = e.getValue().stream()
                    .filter(s -> rows.get(job).containsKey(s.toString()))
                    .count();
            long rec = e.getValue().stream()
                    .filter(s -> missed.get(job).containsKey(s.toString()))
                    .count();
            System.out.printf(
                    "%s: %d slots (%s .. %s), %d run, %d recorded MISSED%n",
                    e.getKey(),
                    e.getValue().size(),
                    e.getValue().isEmpty() ? "-" : e.getValue().get(0),
                    e.getValue().isEmpty() ? "-" : e.getValue().get(e.getValue().size() - 1),
                    run,
                    rec);
        }
        rows.forEach((job, bySlot) -> System.out.printf(
                "%s: %d rows in all, for %d slots%n",
                job, bySlot.values().stream().mapToInt(List::size).sum(), bySlot.size()));
        Map<String, Integer> reasons = new TreeMap<>();
        missed.forEach((job, byKey) -> byKey.values()
                .forEach(whys -> whys.forEach(why -> reasons.merge(
                        job + ": " + why.replaceAll("\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z", "<t>"), 1, Integer::sum))));
        reasons.forEach((why, n) -> System.out.printf("MISSED x%d %s%n", n, why));
        System.out.println("catch-ups started: "
                + output.stream().filter(l -> l.contains("catching up")).count() + " (log lines)");
        for (Stop s : stops) {
            Begin h = s.held();
            List<String> ran = rows.get(h.job()).getOrDefault(h.slot().toString(), List.of());
            Optional<Begin> next = begins.stream()
                    .filter(b -> b.job().equals(h.job()) && !b.name().equals(s.name()) && b.at() > s.termAt())
                    .min(Comparator.comparingLong(Begin::at));
            System.out.printf(
                    "SIGTERM to %s %d ms into %s %s: exited after %d ms; the fire ran on %s (run row %s)%s; next %s "
                            + "elsewhere %s%n",
                    s.name(),
                    s.termAt() - h.at(),
                    h.job(),
                    h.slot(),
                    s.exitAt() - s.termAt(),
                    ran.isEmpty() ? "no instance" : ran,
                    runRow(h.job(), h.slot().toString()),
                    missed.get(h.job()).containsKey(h.slot().toString())
                            ? " (MISSED: " + missed.get(h.job()).get(h.slot().toString()) + ")"
                            : "",
                    h.job(),
                    next.map(b -> (b.at() - s.termAt()) + " ms after the SIGTERM (" + b.slot() + " on " + b.name()
                                    + ")")
                            .orElse("never"));
        }
    }

    /** Whether {@code t} is a fire of a version of {@code job} in force at {@code t}. */
    private static boolean inForce(
            String job, Instant t, Instant reportV2From, Instant retiredFrom, Instant auditFrom) {
        long sec = t.getEpochSecond();
        return switch (job) {
            case REPORT -> t.isBefore(reportV2From) ? sec % 3 == 0 : sec % 2 == 0;
            case LEGACY -> sec % 2 == 0 && t.isBefore(retiredFrom);
            default -> sec % 2 == 0 && !t.isBefore(auditFrom);
        };
    }

    private static Optional<Instant> parsed(String fireKey) {
        try {
            return Optional.of(Instant.parse(fireKey));
        } catch (java.time.format.DateTimeParseException e) {
            return Optional.empty(); // a summary record (<first>..<last>) is not expected here
        }
    }

    private static void log(long began, String what) {
        System.out.printf("%+.1f s: %s%n", (System.currentTimeMillis() - began) / 1000.0, what);
    }

    private void start(String name, String version) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.application.name=rolling",
                "--spring.datasource.url=" + db.jdbcUrl(),
                "--tenure.valkey.addresses=" + valkey.address(),
                "--rolling.instance=" + name,
                "--rolling.version=" + version,
                "--rolling.work=" + WORK.toMillis() + "ms",
                "--spring.flyway.locations=classpath:rolling/migration",
                "--spring.main.banner-mode=off",
                "--spring.task.scheduling.pool.size=2",
                "--tenure.lease.ttl=" + TTL.toSeconds() + "s",
                "--tenure.missed-fires.grace=" + GRACE.toMillis() + "ms",
                "--tenure.missed-fires.sweep-interval=300ms",
                "--tenure.missed-fires.max-catch-ups=100",
                "--tenure.missed-fires.retire-after=" + RETIRE_AFTER.toSeconds() + "s",
                "--logging.level.root=warn",
                "--logging.level.dev.tenure.MissedFires=info"));
        if (version.equals("v2")) {
            // the health check is read over HTTP from a v2 instance
            args.addAll(List.of(
                    "--server.port=0",
                    "--management.endpoints.web.exposure.include=health",
                    "--management.endpoint.health.show-details=always"));
        } else {
            args.add("--spring.main.web-application-type=none");
        }
        if (name.equals("b")) {
            // b's orchestrator waits only 200 ms: the fire b holds is abandoned, not finished, and taken over
            args.add("--spring.lifecycle.timeout-per-shutdown-phase=200ms");
        }
        if (db.username() != null) {
            args.add("--spring.datasource.username=" + db.username());
        }
        if (db.password() != null) {
            args.add("--spring.datasource.password=" + db.password());
        }
        instances.put(
                name,
                JvmProcess.start(
                        List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), RollingApplication.class.getName(), args));
    }

    private String awaitReady(String name) {
        return instances.get(name).awaitStdoutLine(l -> l.startsWith("READY "), Timing.scaled(Duration.ofSeconds(120)));
    }

    private int port(String name) {
        String[] p = awaitReady(name).split(" ");
        return Integer.parseInt(p[p.length - 1]);
    }

    /** A BEGIN on instance {@code name} at or after {@code since} (epoch millis) of a fire it has not finished yet. */
    private Begin awaitBeginOn(String name, long since) throws InterruptedException {
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(30)).toNanos();
        JvmProcess p = instances.get(name);
        while (System.nanoTime() - deadline < 0) {
            List<String> lines = p.stdoutLines();
            for (String line : lines) {
                Optional<Begin> b = Begin.parse(line);
                if (b.isPresent() && b.get().at() >= since) {
                    String fire = " " + b.get().job() + " " + b.get().slot() + " " + name + " ";
                    boolean over = lines.stream()
                            .anyMatch(l -> (l.startsWith("DONE") || l.startsWith("NOT-HERE")) && l.contains(fire));
                    if (!over) {
                        return b.get();
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("instance " + name + " began no fire after " + Instant.ofEpochMilli(since));
    }

    /** True once legacy is RETIRED and its account reached its retirement (it left the sweeps). */
    private boolean legacyRetiredAndSwept() throws SQLException {
        return Boolean.parseBoolean(text("SELECT (state = 'RETIRED' AND swept_until >= state_since)::text "
                + "FROM tenure.job_schedule WHERE job_key = 'legacy'"));
    }

    /** Waits until every slot of report and audit up to {@code to} is COMPLETED, FAILED or MISSED. */
    private void awaitSettled(Instant from, Instant to, long deadline) throws Exception {
        List<Version> report = versions(REPORT);
        List<String> keys = new ArrayList<>();
        slots(from, report.get(0).until(), 3, false).forEach(s -> keys.add(REPORT + " " + s));
        slots(report.get(1).from(), to, 2, true).forEach(s -> keys.add(REPORT + " " + s));
        slots(versions(AUDIT).get(0).from(), to, 2, true).forEach(s -> keys.add(AUDIT + " " + s));
        while (true) {
            long settled = count(
                    "SELECT count(*) FROM tenure.job_runs WHERE status IN ('COMPLETED', 'FAILED', 'MISSED') "
                            + "AND job_key || ' ' || fire_key = ANY(?)",
                    keys);
            if (settled >= keys.size()) {
                return;
            }
            assertThat(System.nanoTime() - deadline < 0)
                    .as(
                            "the fires of report and audit up to %s are settled in time (%d of %d)",
                            to, settled, keys.size())
                    .isTrue();
            Thread.sleep(300);
        }
    }

    private String health(int port) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(Timing.scaled(Duration.ofSeconds(5)))
                .build();
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/actuator/health/tenureFires"))
                .timeout(Timing.scaled(Duration.ofSeconds(10)))
                .build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET /actuator/health/tenureFires").isIn(200, 503);
        return response.body();
    }

    /** The slots of an every-{@code seconds} cron from {@code from} (inclusive) until {@code to}. */
    private static List<Instant> slots(Instant from, Instant to, int seconds, boolean toInclusive) {
        List<Instant> out = new ArrayList<>();
        for (Instant s = slotAtOrAfter(from, seconds);
                s.isBefore(to) || (toInclusive && s.equals(to));
                s = s.plusSeconds(seconds)) {
            out.add(s);
        }
        return out;
    }

    private static Instant slotAtOrAfter(Instant t, int seconds) {
        long s = t.getEpochSecond() + (t.getNano() > 0 ? 1 : 0);
        return Instant.ofEpochSecond(Math.floorDiv(s + seconds - 1, seconds) * seconds);
    }

    private static Instant slotAfter(Instant t, int seconds) {
        return slotAtOrAfter(t.plusNanos(1), seconds);
    }

    private static void sleepUntil(Instant t) throws InterruptedException {
        long ms = t.toEpochMilli() - System.currentTimeMillis();
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    private List<Version> versions(String job) throws SQLException {
        List<Version> out = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT version, expression, valid_from, valid_until "
                        + "FROM tenure.job_schedule_version WHERE job_key = ? ORDER BY version")) {
            ps.setString(1, job);
            try (ResultSet r = ps.executeQuery()) {
                while (r.next()) {
                    out.add(new Version(r.getInt(1), r.getString(2), instant(r, 3), instant(r, 4)));
                }
            }
        }
        assertThat(out).as("versions of %s", job).isNotEmpty();
        return out;
    }

    private Map<String, List<String>> grouped(String sql, String job) throws SQLException {
        Map<String, List<String>> out = new TreeMap<>();
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, job);
            try (ResultSet r = ps.executeQuery()) {
                while (r.next()) {
                    out.computeIfAbsent(r.getString(1), k -> new ArrayList<>()).add(r.getString(2));
                }
            }
        }
        return out;
    }

    private long count(String sql, List<String> keys) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, c.createArrayOf("text", keys.toArray()));
            try (ResultSet r = ps.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    private String text(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet r = ps.executeQuery()) {
            return r.next() ? r.getString(1) : null;
        }
    }

    private Instant instant(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(sql);
                ResultSet r = ps.executeQuery()) {
            assertThat(r.next()).as(sql).isTrue();
            return instant(r, 1);
        }
    }

    private static Instant instant(ResultSet r, int column) throws SQLException {
        Timestamp t = r.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    /** Keeps an instance's output in target/rolling-deploy (its own files go with it). */
    private static void keepLog(String name, JvmProcess p) {
        try {
            Path dir = Files.createDirectories(Path.of("target", "rolling-deploy"));
            List<String> all = new ArrayList<>(p.stdoutLines());
            all.add("---- stderr");
            all.addAll(p.stderrLines());
            Files.write(dir.resolve(name + ".log"), all);
        } catch (IOException e) {
            System.out.println("could not keep the output of " + name + ": " + e);
        }
    }
}
