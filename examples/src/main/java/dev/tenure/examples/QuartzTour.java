package dev.tenure.examples;

import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.JvmProcess;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * The Quartz tour: three instances, each with its own RAM Quartz scheduler ({@link QuartzTourNode}), fire the same
 * every-second cron job for 20 s. Tenure runs each slot on one instance. Halfway, the tour kills (kill -9) the instance
 * that is running the job. Then it prints who ran each slot, and the totals: slots run once, slots run twice (must be
 * 0), and slots nobody ran (the killed slot, and the ones while the dead instance's lease ran out).
 *
 * <p>Servers: see {@link ExampleServers}.
 */
public final class QuartzTour {

    private static final int SECONDS = 20;

    public static void main(String[] args) throws Exception {
        try (ExampleServers servers = ExampleServers.postgresAndValkey(QuartzTour.class)) {
            TenureSchema.migrate(servers.dataSource());
            servers.sql("CREATE TABLE report (slot text NOT NULL, node text NOT NULL, epoch bigint NOT NULL)");
            List<JvmProcess> nodes = new ArrayList<>();
            for (String name : List.of("node-a", "node-b", "node-c")) {
                nodes.add(TourNodes.start(QuartzTourNode.class, List.of(name, servers.valkeyAddress()), servers));
            }
            for (JvmProcess n : nodes) {
                n.awaitStdoutLine("READY"::equals, Duration.ofSeconds(60));
            }
            Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
            Instant last = first.plusSeconds(SECONDS - 1);
            String killed = killTheRunningNode(nodes, first.plusSeconds(SECONDS / 2));
            Thread.sleep(Math.max(
                    0, Duration.between(Instant.now(), last.plusSeconds(2)).toMillis()));
            nodes.forEach(JvmProcess::close);
            report(servers.dataSource(), first, last, killed);
        }
    }

    private static String killTheRunningNode(List<JvmProcess> nodes, Instant notBefore) throws InterruptedException {
        Thread.sleep(Math.max(0, Duration.between(Instant.now(), notBefore).toMillis()));
        for (int tries = 0; tries < 2000; tries++) {
            for (int i = 0; i < nodes.size(); i++) {
                List<String> lines = nodes.get(i).stdoutLines();
                String lastLine = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
                if (lastLine.startsWith("RUNNING ")) {
                    nodes.get(i).kill();
                    return "node-" + (char) ('a' + i) + " killed (kill -9) while running slot " + lastLine.substring(8);
                }
            }
            Thread.sleep(2);
        }
        return "no node caught running; nothing killed";
    }

    private static void report(DataSource dataSource, Instant first, Instant last, String killed) throws Exception {
        Map<Instant, List<String>> bySlot = new TreeMap<>();
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT slot, node, epoch FROM report")) {
            while (r.next()) {
                bySlot.computeIfAbsent(Instant.parse(r.getString(1)), k -> new ArrayList<>())
                        .add(r.getString(2) + " (epoch " + r.getLong(3) + ")");
            }
        }
        int once = 0;
        int twice = 0;
        int none = 0;
        System.out.println();
        System.out.println("  " + killed);
        System.out.println();
        System.out.printf("%-22s %s%n", "slot", "run by");
        for (Instant slot = first; !slot.isAfter(last); slot = slot.plusSeconds(1)) {
            List<String> by = bySlot.getOrDefault(slot, List.of());
            once += by.size() == 1 ? 1 : 0;
            twice += by.size() > 1 ? 1 : 0;
            none += by.isEmpty() ? 1 : 0;
            System.out.printf("%-22s %s%n", slot, by.isEmpty() ? "-- nobody --" : String.join(", ", by));
        }
        System.out.println();
        System.out.printf("slots run once         %d of %d%n", once, SECONDS);
        System.out.printf("slots run twice        %d%n", twice);
        System.out.printf("slots nobody ran       %d (the killed run, and its lease's TTL of 2 s)%n", none);
    }
}
