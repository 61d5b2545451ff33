package dev.tenure.examples;

import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.ValkeyServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The settlement tour, the main demo ({@code ./scripts/demo.sh}). Three application instances share a "settlement" job
 * that fires every second (and campaign for a "reporter" role). While they run, the tour kills the instance that is
 * settling (kill -9), freezes another one mid-run past its lease (SIGSTOP, 3 s), and stops Valkey for 5 s. Then it
 * prints, per slot, who settled it under which epoch, and the totals: takeovers, runs through the database fallback,
 * stale writes rejected, reporter leaderships, and slots settled more than once (must be 0; the settlement table has no
 * unique key on the slot, so only the protocol keeps it at 0).
 *
 * <p>Servers: see {@link ExampleServers}; without a {@code valkey-server}, the DATABASE mode (and it says so).
 * {@code DEMO_VERBOSE=1} also prints every line of every instance. At the end, in an interactive terminal, the ops
 * console shows the run until Enter ({@link DemoConsole}; {@code --no-console} in demo.sh turns it off).
 */
public final class SettlementTour {

    private static final int FIRES = 30;
    private static final long INTERVAL = 1000;

    public static void main(String[] args) throws Exception {
        try (ExampleServers servers = startServers()) {
            System.out.println("Postgres: " + servers.database().source() + " ("
                    + servers.database().jdbcUrl() + ")");
            TenureSchema.migrate(servers.dataSource());
            // no unique key on the slot: a slot settled twice would show up as two rows
            servers.sql("CREATE TABLE settlement (slot text NOT NULL, epoch bigint NOT NULL, node text NOT NULL)");
            ValkeyServer valkey = servers.valkey();
            long start = System.currentTimeMillis() + 8000;
            List<JvmProcess> nodes = new ArrayList<>();
            for (String name : List.of("node-a", "node-b", "node-c")) {
                nodes.add(TourNodes.start(
                        SettlementNode.class,
                        List.of(name, valkey == null ? "-" : valkey.address()),
                        servers,
                        Integer.toString(FIRES),
                        Long.toString(start),
                        Long.toString(INTERVAL)));
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
            summary(servers, nodes, events);
            nodes.forEach(JvmProcess::close);
            DemoConsole.offer(servers.dataSource()); // the ops console on what just happened, until Enter
        }
    }

    private static ExampleServers startServers() {
        try {
            ExampleServers servers = ExampleServers.postgresAndValkey(SettlementTour.class);
            System.out.println("Valkey: " + servers.valkeyAddress() + " (mode VALKEY_WITH_DATABASE_FALLBACK)");
            return servers;
        } catch (RuntimeException e) {
            System.out.println("Valkey: not available (" + e.getMessage() + "); running in the DATABASE mode");
            return ExampleServers.postgres(SettlementTour.class);
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

    private static void faults(List<JvmProcess> nodes, ValkeyServer valkey, long start, List<String> events)
            throws Exception {
        int killed = awaitSettling(nodes, start + 5 * INTERVAL);
        if (killed >= 0) {
            nodes.get(killed).kill();
            events.add("t+" + (System.currentTimeMillis() - start) / 1000 + "s  killed node-" + (char) ('a' + killed)
                    + " (kill -9) while it was settling");
        }
        int frozen = awaitSettling(nodes, start + 10 * INTERVAL);
        if (frozen >= 0) {
            nodes.get(frozen).pause();
            events.add("t+" + (System.currentTimeMillis() - start) / 1000 + "s  froze node-" + (char) ('a' + frozen)
                    + " (SIGSTOP) while it was settling, for 3 s (lease TTL 2 s)");
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

    private static void summary(ExampleServers servers, List<JvmProcess> nodes, List<String> events) throws Exception {
        Map<String, String> settled = new TreeMap<>((x, y) -> Integer.compare(slot(x), slot(y)));
        int duplicates;
        try (Connection c = servers.dataSource().getConnection();
                Statement s = c.createStatement()) {
            ResultSet r = s.executeQuery("SELECT slot, epoch, node FROM settlement");
            while (r.next()) {
                settled.merge(r.getString(1), r.getString(3) + " epoch " + r.getLong(2), (x, y) -> x + "  AND " + y);
            }
            r = s.executeQuery(
                    "SELECT count(*) FROM (SELECT slot FROM settlement GROUP BY slot HAVING count(*) > 1) d");
            r.next();
            duplicates = r.getInt(1);
        }
        int fallbacks = 0;
        int stale = 0;
        int executed = 0;
        int leaderships = 0;
        for (JvmProcess n : nodes) {
            for (String l : n.stdoutLines()) {
                executed += l.startsWith("OUTCOME ") && l.contains(" EXECUTED ") ? 1 : 0;
                fallbacks += l.startsWith("OUTCOME ") && l.contains(" EXECUTED ") && l.endsWith("fallback") ? 1 : 0;
                stale += l.startsWith("OUTCOME ") && l.contains(" LEASE_LOST ") ? 1 : 0;
                leaderships += l.startsWith("LEADER ") ? 1 : 0;
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
        System.out.printf("database fallback runs   %d%n", fallbacks);
        System.out.printf("stale writes rejected    %d%n", stale);
        System.out.printf("reporter leaderships     %d%n", leaderships);
        System.out.printf(
                "slots settled twice      %d   (business rows; the table has no unique key on the slot)%n", duplicates);
    }

    private static int slot(String s) {
        return Integer.parseInt(s.substring(5));
    }
}
