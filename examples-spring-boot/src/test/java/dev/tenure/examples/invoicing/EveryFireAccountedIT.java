package dev.tenure.examples.invoicing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 21, acceptance 1: three instances of a Boot application ({@link InvoicingApplication}) on the starter, a two-second
 * cron, a table without a unique key on the slot, Valkey and Postgres real, more than 60 s. The instance running a fire
 * is killed (SIGKILL) mid-run; later the one running a fire is frozen (SIGSTOP) mid-transaction for 25 s with a 4 s
 * TTL; later the one running a fire is stopped (SIGTERM) mid-run and started again. For the job that catches missed
 * fires up, every slot of the window has exactly one invoice; for the job that skips them, every slot has one invoice
 * or one MISSED record, never both, never neither. Prints the counts and how long each fault kept the job from the
 * other instances.
 */
class EveryFireAccountedIT {

    private static final Duration TTL = Duration.ofSeconds(4);
    private static final Duration RENEWAL = TTL.dividedBy(3);
    private static final Duration SLOT = Duration.ofSeconds(2);
    private static final String CATCH_UP = "invoicing-catch-up";
    private static final String SKIP = "invoicing-skip";

    private static PostgresDatabase db;
    private static ValkeyServer valkey;
    private final Map<String, JvmProcess> instances = new LinkedHashMap<>();

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(EveryFireAccountedIT.class);
        valkey = ValkeyServers.standalone();
    }

    @AfterAll
    static void stop() {
        valkey.close();
        db.close();
    }

    /** A fault on instance {@code name} at {@code at} (epoch millis), while it ran {@code slot} of {@code job}. */
    record Fault(String kind, String job, String name, Instant slot, long at) {}

    /** A BEGIN line: instance {@code name} holds {@code slot} of {@code job} since {@code at} (epoch millis). */
    record Begin(String job, Instant slot, String name, long at) {
        static Optional<Begin> parse(String line) {
            String[] p = line.split(" ");
            return line.startsWith("BEGIN ") && p.length == 5
                    ? Optional.of(new Begin(p[1], Instant.parse(p[2]), p[3], Long.parseLong(p[4])))
                    : Optional.empty();
        }
    }

    @Test
    void everySlotRunsOnceOrIsReported_throughAKillAFreezeAndAShutdown() throws Exception {
        List<Fault> faults = new ArrayList<>();
        Instant windowStart;
        Instant windowEnd;
        List<String> output = new ArrayList<>();
        try {
            for (String name : List.of("a", "b", "c")) {
                start(name);
            }
            instances.keySet().forEach(this::awaitReady);
            windowStart = evenSecondAfter(Instant.now().plusSeconds(2));

            Begin k = awaitBegin(CATCH_UP, windowStart.plusSeconds(4), List.of());
            pauseMillis(300);
            instances.get(k.name()).kill();
            faults.add(new Fault("SIGKILL", k.job(), k.name(), k.slot(), System.currentTimeMillis()));
            start(k.name() + "2"); // the orchestrator replaces it

            Begin f = awaitBegin(SKIP, Instant.now().plusSeconds(2), List.of(k.name()));
            pauseMillis(400); // inside its transaction: fenced, working
            JvmProcess frozen = instances.get(f.name());
            frozen.pause();
            faults.add(new Fault("SIGSTOP 25 s", f.job(), f.name(), f.slot(), System.currentTimeMillis()));
            Thread.sleep(25_000);
            frozen.resume();

            Begin t = awaitBegin(CATCH_UP, Instant.now().plusSeconds(4), List.of(k.name()));
            pauseMillis(300);
            JvmProcess stopping = instances.get(t.name());
            stopping.terminate(); // SIGTERM: Boot's graceful shutdown
            faults.add(new Fault("SIGTERM", t.job(), t.name(), t.slot(), System.currentTimeMillis()));
            assertThat(stopping.waitFor(Timing.scaled(Duration.ofSeconds(30))))
                    .as("a stopped instance exits")
                    .isPresent();
            long stoppedAt = System.currentTimeMillis();
            start(t.name() + "2");
            windowEnd = evenSecondAfter(Instant.ofEpochMilli(stoppedAt).plusSeconds(8));
            awaitSettled(windowStart, windowEnd);
            instances.values().forEach(p -> output.addAll(p.stdoutLines()));
            faults.add(new Fault("exited", t.job(), t.name(), t.slot(), stoppedAt));
        } finally {
            instances.values().forEach(JvmProcess::close);
        }

        Map<String, Map<Instant, Integer>> invoices = new HashMap<>();
        Map<String, Map<Instant, Integer>> missed = new HashMap<>();
        for (String job : List.of(CATCH_UP, SKIP)) {
            invoices.put(job, perSlot("SELECT slot, count(*) FROM invoice WHERE job = '" + job + "' GROUP BY slot"));
            missed.put(
                    job,
                    perSlot("SELECT fire_key, count(*) FROM tenure.job_runs WHERE job_key = '" + job
                            + "' AND status = 'MISSED' GROUP BY fire_key"));
        }
        List<Begin> begins =
                output.stream().map(Begin::parse).flatMap(Optional::stream).toList();
        long catchUps =
                output.stream().filter(l -> l.contains("catching up fire")).count();
        System.out.println("window " + windowStart + " .. " + windowEnd + "; catch-ups started: " + catchUps);
        for (String job : List.of(CATCH_UP, SKIP)) {
            int slots = 0;
            int withInvoice = 0;
            int withMissed = 0;
            for (Instant s = windowStart; !s.isAfter(windowEnd); s = s.plus(SLOT)) {
                slots++;
                withInvoice += invoices.get(job).getOrDefault(s, 0) > 0 ? 1 : 0;
                withMissed += missed.get(job).getOrDefault(s, 0) > 0 ? 1 : 0;
            }
            System.out.printf(
                    "%s: %d slots, %d with an invoice, %d recorded MISSED%n", job, slots, withInvoice, withMissed);
        }
        for (Fault fault : faults.subList(0, 3)) {
            Optional<Begin> next = begins.stream()
                    .filter(b -> b.job().equals(fault.job()) && !b.name().equals(fault.name()) && b.at() > fault.at())
                    .min(java.util.Comparator.comparingLong(Begin::at));
            System.out.printf(
                    "%s of %s (holding %s of %s): next run elsewhere after %s%n",
                    fault.kind(),
                    fault.name(),
                    fault.slot(),
                    fault.job(),
                    next.map(b -> (b.at() - fault.at()) + " ms (" + b.slot() + " on " + b.name() + ")")
                            .orElse("never"));
        }

        for (Instant s = windowStart; !s.isAfter(windowEnd); s = s.plus(SLOT)) {
            assertThat(invoices.get(CATCH_UP).getOrDefault(s, 0))
                    .as("invoices of %s for slot %s", CATCH_UP, s)
                    .isEqualTo(1);
            assertThat(missed.get(CATCH_UP).getOrDefault(s, 0))
                    .as("MISSED records of %s for slot %s", CATCH_UP, s)
                    .isZero();
            int inv = invoices.get(SKIP).getOrDefault(s, 0);
            int mis = missed.get(SKIP).getOrDefault(s, 0);
            assertThat(inv + mis)
                    .as("invoices (%d) + MISSED records (%d) of %s for slot %s", inv, mis, SKIP, s)
                    .isEqualTo(1);
        }
        // the target is TTL plus one renewal (printed above); the bound adds the claim lock timeout (2 s: how long a
        // claim lets an expired holder's open fenced transaction finish before ending it) and a second of slack
        Duration killOrFreeze = Timing.scaled(TTL.plus(RENEWAL).plusSeconds(3));
        for (Fault fault : faults.subList(0, 2)) {
            Begin next = begins.stream()
                    .filter(b -> b.job().equals(fault.job()) && !b.name().equals(fault.name()) && b.at() > fault.at())
                    .min(java.util.Comparator.comparingLong(Begin::at))
                    .orElseThrow();
            assertThat(Duration.ofMillis(next.at() - fault.at()))
                    .as("%s: the next run of %s elsewhere", fault.kind(), fault.job())
                    .isLessThanOrEqualTo(killOrFreeze);
        }
        // after the stop the job runs on elsewhere (its next slot, or a catch-up before it): within 1 s of the SIGTERM,
        // or within the kill's bound of the first slot's time after the exit. The prompt hand-over itself is
        // ShutdownHandOverIT's to prove; the survivors here were just killed or frozen 25 s, and on busy cores their
        // own schedules run seconds late, which is not the stopped instance's doing
        Fault exited = faults.get(3);
        Instant firstSlot = evenSecondAfter(Instant.ofEpochMilli(exited.at()));
        Begin after = begins.stream()
                .filter(b -> b.job().equals(CATCH_UP) && !b.name().equals(exited.name()) && b.at() > exited.at())
                .min(java.util.Comparator.comparingLong(Begin::at))
                .orElseThrow(
                        () -> new AssertionError("nobody ran " + CATCH_UP + " after " + exited.name() + " exited"));
        System.out.printf(
                "%s exited: the next run of %s elsewhere (%s on %s) began %d ms after the first slot's time %s%n",
                exited.name(), CATCH_UP, after.slot(), after.name(), after.at() - firstSlot.toEpochMilli(), firstSlot);
        // or within 1 s of the SIGTERM: an instance that waited for the job while the stopping one held it got it when
        // the drain released it, and its later slots lag behind their times (a CI run: 709 ms after the SIGTERM)
        Duration second = Timing.scaled(Duration.ofSeconds(1));
        Fault term = faults.get(2);
        boolean soonAfterTerm = begins.stream()
                .anyMatch(b -> b.job().equals(CATCH_UP)
                        && !b.name().equals(term.name())
                        && b.at() > term.at()
                        && Duration.ofMillis(b.at() - term.at()).compareTo(second) <= 0);
        if (!soonAfterTerm) {
            assertThat(Duration.ofMillis(after.at() - firstSlot.toEpochMilli()))
                    .as("%s after the shutdown, and no run elsewhere within 1 s of the SIGTERM", CATCH_UP)
                    .isLessThanOrEqualTo(killOrFreeze);
        }
    }

    private void start(String name) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.datasource.url=" + db.jdbcUrl(),
                "--tenure.valkey.addresses=" + valkey.address(),
                "--invoicing.instance=" + name,
                "--invoicing.work=1s",
                "--spring.flyway.locations=classpath:invoicing/migration",
                "--spring.main.banner-mode=off",
                "--spring.task.scheduling.pool.size=2",
                "--tenure.lease.ttl=" + TTL.toSeconds() + "s",
                "--tenure.missed-fires.grace=2s",
                "--tenure.missed-fires.sweep-interval=500ms",
                "--tenure.missed-fires.max-catch-ups=100",
                "--logging.level.root=warn",
                "--logging.level.dev.tenure.MissedFires=info",
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

    /** The first BEGIN of {@code job} for a slot after {@code after}, on an instance not in {@code except}. */
    private Begin awaitBegin(String job, Instant after, List<String> except) throws InterruptedException {
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(30)).toNanos();
        while (System.nanoTime() < deadline) {
            for (Map.Entry<String, JvmProcess> e : instances.entrySet()) {
                if (except.contains(e.getKey()) || !e.getValue().isAlive()) {
                    continue;
                }
                for (String line : e.getValue().stdoutLines()) {
                    Optional<Begin> b = Begin.parse(line);
                    if (b.isPresent()
                            && b.get().job().equals(job)
                            && b.get().slot().isAfter(after)) {
                        return b.get();
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no instance began a fire of " + job + " after " + after);
    }

    /** Waits until every slot of the window has an invoice or a MISSED record for both jobs. */
    private void awaitSettled(Instant from, Instant to) throws Exception {
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(60)).toNanos();
        int slots = (int) (Duration.between(from, to).dividedBy(SLOT)) + 1;
        while (System.nanoTime() < deadline) {
            long settled = count("SELECT count(*) FROM tenure.job_runs WHERE status IN ('COMPLETED', 'MISSED') "
                    + "AND fire_key BETWEEN '" + from + "' AND '" + to + "'");
            if (settled >= 2L * slots) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("the window " + from + " .. " + to + " did not settle in time");
    }

    private Map<Instant, Integer> perSlot(String sql) throws SQLException {
        Map<Instant, Integer> out = new HashMap<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.put(Instant.parse(r.getString(1)), r.getInt(2));
            }
        }
        return out;
    }

    private long count(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    private static Instant evenSecondAfter(Instant t) {
        long s = t.getEpochSecond() + 1;
        return Instant.ofEpochSecond(s % 2 == 0 ? s : s + 1);
    }

    private static void pauseMillis(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }
}
