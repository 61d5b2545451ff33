package dev.tenure.examples.boot;

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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two Boot applications in separate JVMs (Boot's managed Flyway and HikariCP, next to the application's own Flyway
 * migration) share {@code @Scheduled(cron = "* * * * * *") @Coordinated} for more than 30 slots, on a real Postgres
 * and valkey-server, in a table without a unique key on the slot. The instance running a slot is frozen (SIGSTOP) past
 * its 2 s TTL: its write is rolled back when it resumes. Later the instance running a slot is killed: the survivor
 * settles every later slot once. Tenure's sweeper catches both faulted slots up (the default policy), each once.
 */
class BootSettlementIT {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration FROZEN_FOR = Duration.ofSeconds(4);
    /** How long after a fault slots may go unsettled: the lease's TTL, plus a fire's work and a margin. */
    private static final Duration RECOVERY = TTL.plusSeconds(2);

    static PostgresDatabase db;
    static ValkeyServer valkey;

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(BootSettlementIT.class);
        valkey = ValkeyServers.standalone();
    }

    @AfterAll
    static void stop() {
        valkey.close();
        db.close();
    }

    /** A fault hit instance {@code name} while it held {@code slot}, at {@code at}. */
    record Fault(String name, Instant slot, long epoch, Instant at) {}

    @Test
    void eachSlotOnce_throughAFrozenHolderAndAKilledOne() throws Exception {
        Fault frozen;
        Fault killed;
        Instant bothUp;
        List<String> output = new java.util.ArrayList<>();
        // the sweeper looks for missed slots every 500 ms, 1 s after their time: the faulted slots are caught up
        try (Instances instances = new Instances(
                db, valkey, "--tenure.missed-fires.grace=1s", "--tenure.missed-fires.sweep-interval=500ms")) {
            instances.start("a");
            instances.start("b");
            for (String name : List.of("a", "b")) {
                assertThat(instances.awaitReady(name))
                        .as("instance %s runs on Boot's Flyway and HikariCP", name)
                        .endsWith(" flyway " + System.getProperty("tenure.boot.flyway") + " hikaricp "
                                + System.getProperty("tenure.boot.hikaricp"));
            }
            bothUp = Instant.now().plusSeconds(2);
            awaitSettled(8);
            frozen = freezeTheHolder(instances);
            awaitSettled(settled().size() + 8);
            killed = awaitBegin(instances, List.of("a", "b"), Instant.now());
            instances.get(killed.name()).kill();
            awaitSettled(Math.max(32, settled().size() + 10));
            instances.all().forEach((name, p) -> output.addAll(p.stdoutLines()));
        }
        Map<Instant, List<String>> slots = settled();
        System.out.println("both up from " + bothUp + "; frozen: " + frozen + "; killed: " + killed
                + "; slots settled: " + slots.size());
        slots.forEach((slot, by) -> System.out.println(slot + " " + by));

        assertThat(
                        count(
                                "SELECT count(*) FROM public.flyway_schema_history WHERE success AND script = 'V1__settlement.sql'"))
                .as("the application's own migration, by Boot's Flyway")
                .isEqualTo(1);
        assertThat(count("SELECT count(*) FROM tenure.tenure_schema_history WHERE success AND version IN ('1', '2')"))
                .as("Tenure's migrations, in their own history table")
                .isEqualTo(2);
        assertThat(slots.values())
                .as("rows per slot")
                .allSatisfy(by -> assertThat(by).hasSize(1));
        assertThat(slots).hasSizeGreaterThanOrEqualTo(30);
        assertThat(count("SELECT count(*) FROM settlement WHERE slot = '" + frozen.slot() + "' AND epoch = "
                        + frozen.epoch()))
                .as("the frozen holder's write (epoch %d): rolled back", frozen.epoch())
                .isZero();
        assertThat(count("SELECT count(*) FROM settlement WHERE slot = '" + killed.slot() + "' AND epoch = "
                        + killed.epoch()))
                .as("the killed holder's write (epoch %d)", killed.epoch())
                .isZero();
        assertThat(slots.get(frozen.slot()))
                .as("the frozen holder's slot, caught up once under a later epoch")
                .hasSize(1);
        assertThat(slots.get(killed.slot()))
                .as("the killed holder's slot, caught up once by the survivor")
                .containsExactly(killed.name().equals("a") ? "b" : "a");
        String survivor = killed.name().equals("a") ? "b" : "a";
        Instant first = bothUp.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
        Instant last = ((TreeMap<Instant, List<String>>) slots).lastKey();
        for (Instant s = first; !s.isAfter(last); s = s.plusSeconds(1)) {
            if (within(s, frozen, FROZEN_FOR.plus(RECOVERY)) || within(s, killed, RECOVERY)) {
                continue;
            }
            String slot = s.toString();
            assertThat(slots)
                    .as(
                            "slot %s, outside the faults' windows; the instances said: %s",
                            s,
                            output.stream()
                                    .filter(l -> l.contains(" " + slot + " "))
                                    .toList())
                    .containsKey(s);
            if (s.isAfter(killed.slot())) {
                assertThat(slots.get(s)).as("slot %s, after the kill", s).containsExactly(survivor);
            }
        }
    }

    private static boolean within(Instant slot, Fault fault, Duration window) {
        return !slot.isBefore(fault.slot()) && slot.isBefore(fault.slot().plus(window));
    }

    /** Freezes the instance that begins the next slot, past its TTL, until its resumed run reports the slot STALE. */
    private static Fault freezeTheHolder(Instances instances) throws InterruptedException {
        for (int attempt = 1; attempt <= 3; attempt++) {
            Fault f = awaitBegin(instances, List.of("a", "b"), Instant.now());
            JvmProcess holder = instances.get(f.name());
            holder.pause();
            Thread.sleep(FROZEN_FOR.toMillis());
            holder.resume();
            String line = holder.awaitStdoutLine(
                    l -> l.startsWith("STALE " + f.slot() + " ") || l.startsWith("SETTLED " + f.slot() + " "),
                    Timing.scaled(Duration.ofSeconds(20)));
            if (line.startsWith("STALE ")) {
                return f;
            }
            System.out.println(
                    "attempt " + attempt + ": the freeze came after " + f.name() + " had committed " + f.slot());
        }
        throw new AssertionError("no freeze landed before the holder's commit in 3 attempts");
    }

    /** The first BEGIN line, of any of {@code names}, for a slot after {@code after}. */
    private static Fault awaitBegin(Instances instances, List<String> names, Instant after)
            throws InterruptedException {
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(20)).toNanos();
        while (System.nanoTime() < deadline) {
            for (String name : names) {
                for (String line : instances.get(name).stdoutLines()) {
                    if (line.startsWith("BEGIN ")) {
                        Instant slot = Instant.parse(line.split(" ")[1]);
                        if (slot.isAfter(after)) {
                            return new Fault(name, slot, Long.parseLong(line.split(" ")[4]), Instant.now());
                        }
                    }
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no instance began a slot after " + after);
    }

    private static void awaitSettled(int slots) throws Exception {
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(60)).toNanos();
        while (settled().size() < slots) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("fewer than " + slots + " slots settled: " + settled());
            }
            Thread.sleep(200);
        }
    }

    private static long count(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
    }

    /** Which instances wrote each slot's rows (one entry per row), by slot. */
    private static Map<Instant, List<String>> settled() throws SQLException {
        Map<Instant, List<String>> slots = new TreeMap<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT slot, instance FROM settlement ORDER BY slot, settled_at")) {
            while (r.next()) {
                slots.computeIfAbsent(Instant.parse(r.getString(1)), k -> new java.util.ArrayList<>())
                        .add(r.getString(2));
            }
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {
                return slots; // the instances have not migrated the application's table yet
            }
            throw e;
        }
        return slots;
    }
}
