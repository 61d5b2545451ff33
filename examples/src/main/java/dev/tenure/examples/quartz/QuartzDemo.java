package dev.tenure.examples.quartz;

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
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Three instances, each with its own RAM Quartz scheduler, fire the same every-second cron job for 20 s. Tenure runs
 * each slot on one instance. Halfway, the demo kills (kill -9) the instance that is running the job. Then it prints
 * who ran each slot, and the totals: slots run once, slots run twice (must be 0), and slots nobody ran (the killed
 * slot, and the ones while the dead instance's lease ran out).
 *
 * <p>Run: {@code mvn -q -pl examples -am install -DskipTests && mvn -q -pl examples exec:exec
 * -Ddemo.main=dev.tenure.examples.quartz.QuartzDemo}. Needs {@code valkey-server} on the PATH; Postgres from
 * {@code TENURE_PG_URL}, else embedded.
 */
public final class QuartzDemo {

    private static final int SECONDS = 20;

    public static void main(String[] args) throws Exception {
        try (ValkeyServer valkey = ValkeyServers.standalone();
             PostgresDatabase db = System.getenv("TENURE_PG_URL") != null
                     ? PostgresDatabases.forClass(QuartzDemo.class)
                     : PostgresDatabases.forClass(QuartzDemo.class, PostgresSource.EMBEDDED)) {
            TenureSchema.migrate(db.dataSource());
            try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE report (slot text NOT NULL, node text NOT NULL, epoch bigint NOT NULL)");
            }
            List<JvmProcess> nodes = new ArrayList<>();
            for (String name : List.of("node-a", "node-b", "node-c")) {
                nodes.add(JvmProcess.start(QuartzDemoNode.class, name, valkey.address(), db.jdbcUrl(), db.username(),
                        db.password() == null || db.password().isEmpty() ? "-" : db.password()));
            }
            for (JvmProcess n : nodes) {
                n.awaitStdoutLine("READY"::equals, Duration.ofSeconds(60));
            }
            Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(2);
            Instant last = first.plusSeconds(SECONDS - 1);
            String killed = killTheRunningNode(nodes, first.plusSeconds(SECONDS / 2));
            Thread.sleep(Math.max(0, Duration.between(Instant.now(), last.plusSeconds(2)).toMillis()));
            nodes.forEach(JvmProcess::close);
            report(db, first, last, killed);
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

    private static void report(PostgresDatabase db, Instant first, Instant last, String killed) throws Exception {
        Map<Instant, List<String>> bySlot = new TreeMap<>();
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
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
