package dev.tenure.examples;

import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.PostgresSource;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The main demo. Three application instances share a "settlement" job that fires every second (and campaign
 * for a "reporter" role). While they run, the demo kills the instance that is settling (kill -9), freezes
 * another one mid-run past its lease (SIGSTOP, 3 s), and stops Valkey for 5 s. Then it prints, per slot, who
 * settled it under which epoch, and the totals: takeovers, runs through the database fallback, stale writes
 * rejected, reporter terms, and slots settled more than once (must be 0; the settlement table has no unique key on
 * the slot, so only the protocol keeps it at 0).
 *
 * <p>Servers: Postgres from {@code TENURE_PG_URL} if set, else embedded Postgres; Valkey from
 * {@code TENURE_VALKEY_ADDRESS} or a local {@code valkey-server}; without either, the DATABASE mode (and it says so).
 */
public final class SettlementDemo {

    private static final int FIRES = 30;
    private static final long INTERVAL = 1000;

    public static void main(String[] args) throws Exception {
        ValkeyServer valkey = startValkey();
        try (PostgresDatabase db = System.getenv("TENURE_PG_URL") != null
                ? PostgresDatabases.forClass(SettlementDemo.class)
                : PostgresDatabases.forClass(SettlementDemo.class, PostgresSource.EMBEDDED)) {
            System.out.println("Postgres: " + db.source() + " (" + db.jdbcUrl() + ")");
            TenureSchema.migrate(db.dataSource());
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                // no unique key on the slot: a slot settled twice would show up as two rows
                s.execute("CREATE TABLE settlement (slot text NOT NULL, epoch bigint NOT NULL, node text NOT NULL)");
            }
            long start = System.currentTimeMillis() + 8000;
            List<JvmProcess> nodes = new ArrayList<>();
            for (String name : List.of("node-a", "node-b", "node-c")) {
                nodes.add(JvmProcess.start(SettlementNode.class, name, valkey == null ? "-" : valkey.address(), db.jdbcUrl(),
                        db.username(), db.password() == null || db.password().isEmpty() ? "-" : db.password(),
                        Integer.toString(FIRES), Long.toString(start), Long.toString(INTERVAL)));
            }
            List<String> events = new ArrayList<>();
            faults(nodes, valkey, start, events);
            for (JvmProcess n : nodes) {
                if (n.isAlive()) {
                    n.awaitStdoutLine("DONE"::equals, Duration.ofSeconds(FIRES * INTERVAL / 1000 + 60));
                }
            }
            if (System.getenv("DEMO_VERBOSE") != null) {
                for (int i = 0; i < nodes.size(); i++) {
                    for (String l : nodes.get(i).stdoutLines()) {
                        System.out.println("node-" + (char) ('a' + i) + " | " + l);
                    }
                }
            }
            summary(db, nodes, events);
            nodes.forEach(JvmProcess::close);
        } finally {
            if (valkey != null) {
                valkey.close();
            }
        }
    }

    private static ValkeyServer startValkey() {
        try {
            ValkeyServer v = ValkeyServers.standalone();
            System.out.println("Valkey: " + v.address() + " (mode VALKEY_WITH_DATABASE_FALLBACK)");
            return v;
        } catch (RuntimeException e) {
            System.out.println("Valkey: not available (" + e.getMessage() + "); running in the DATABASE mode");
            return null;
        }
    }

    /** The index of an instance inside a run right now (START printed, no OUTCOME yet), or -1. */
    private static int settlingNow(List<JvmProcess> nodes) {
        for (int i = 0; i < nodes.size(); i++) {
            if (!nodes.get(i).isAlive()) {
                continue;
            }
            List<String> lines = nodes.get(i).stdoutLines();
            for (int j = lines.size() - 1; j >= 0; j--) {
                if (lines.get(j).startsWith("OUTCOME ")) {
                    break;
                }
                if (lines.get(j).startsWith("START ")) {
                    return i;
                }
            }
        }
        return -1;
    }

    private static int awaitSettling(List<JvmProcess> nodes, long notBefore) throws InterruptedException {
        while (System.currentTimeMillis() < notBefore + 10_000) {
            int i = System.currentTimeMillis() >= notBefore ? settlingNow(nodes) : -1;
            if (i >= 0) {
                return i;
            }
            Thread.sleep(5);
        }
        return -1;
    }

    private static void faults(List<JvmProcess> nodes, ValkeyServer valkey, long start, List<String> events) throws Exception {
        int killed = awaitSettling(nodes, start + 5 * INTERVAL);
        if (killed >= 0) {
            nodes.get(killed).kill();
            events.add("t+" + (System.currentTimeMillis() - start) / 1000 + "s  killed node-" + (char) ('a' + killed) + " (kill -9) while it was settling");
        }
        int frozen = awaitSettling(nodes, start + 10 * INTERVAL);
        if (frozen >= 0) {
            nodes.get(frozen).pause();
            events.add("t+" + (System.currentTimeMillis() - start) / 1000 + "s  froze node-" + (char) ('a' + frozen) + " (SIGSTOP) while it was settling, for 3 s (lease TTL 2 s)");
            Thread.sleep(3000);
            nodes.get(frozen).resume();
        }
        if (valkey != null) {
            Thread.sleep(Math.max(0, start + 18 * INTERVAL - System.currentTimeMillis()));
            valkey.kill();
            events.add("t+" + (System.currentTimeMillis() - start) / 1000 + "s  stopped Valkey for 5 s");
            Thread.sleep(5000);
            valkey.restart();
            events.add("t+" + (System.currentTimeMillis() - start) / 1000 + "s  Valkey back");
        }
    }

    private static void summary(PostgresDatabase db, List<JvmProcess> nodes, List<String> events) throws Exception {
        Map<String, String> settled = new TreeMap<>((x, y) -> Integer.compare(slot(x), slot(y)));
        int duplicates;
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            ResultSet r = s.executeQuery("SELECT slot, epoch, node FROM settlement");
            while (r.next()) {
                settled.merge(r.getString(1), r.getString(3) + " epoch " + r.getLong(2), (x, y) -> x + "  AND " + y);
            }
            r = s.executeQuery("SELECT count(*) FROM (SELECT slot FROM settlement GROUP BY slot HAVING count(*) > 1) d");
            r.next();
            duplicates = r.getInt(1);
        }
        int fallbacks = 0;
        int stale = 0;
        int executed = 0;
        int leaderTerms = 0;
        for (JvmProcess n : nodes) {
            for (String l : n.stdoutLines()) {
                executed += l.startsWith("OUTCOME ") && l.contains(" EXECUTED ") ? 1 : 0;
                fallbacks += l.startsWith("OUTCOME ") && l.contains(" EXECUTED ") && l.endsWith("fallback") ? 1 : 0;
                stale += l.startsWith("OUTCOME ") && l.contains(" LEASE_LOST ") ? 1 : 0;
                leaderTerms += l.startsWith("LEADER ") ? 1 : 0;
            }
        }
        System.out.println();
        events.forEach(e -> System.out.println("  " + e));
        System.out.println();
        System.out.printf("%-8s %s%n", "slot", "settled by");
        long takeovers = 0;
        String prevNode = null;
        for (int k = 0; k < FIRES; k++) {
            String v = settled.getOrDefault("slot-" + k, "-- not settled --");
            System.out.printf("%-8s %s%n", "slot-" + k, v);
            String node = v.split(" ")[0];
            if (prevNode != null && !node.equals(prevNode) && !node.startsWith("--")) {
                takeovers++;
            }
            if (!node.startsWith("--")) {
                prevNode = node;
            }
        }
        System.out.println();
        System.out.printf("slots settled            %d of %d%n", settled.size(), FIRES);
        System.out.printf("runs executed            %d%n", executed);
        System.out.printf("takeovers (node changes) %d%n", takeovers);
        System.out.printf("runs via DB fallback     %d%n", fallbacks);
        System.out.printf("stale writes rejected    %d%n", stale);
        System.out.printf("reporter leader terms    %d%n", leaderTerms);
        System.out.printf("slots settled twice      %d   (business rows; the table has no unique key on the slot)%n", duplicates);
    }

    private static int slot(String s) {
        return Integer.parseInt(s.substring(5));
    }
}
