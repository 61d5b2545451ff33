package dev.tenure.examples.boot;

import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Two instances of the Boot settlement application share a {@code @Scheduled(cron = "* * * * * *") @Coordinated}
 * job for a few seconds; each slot is settled by one of them, once. Run it with
 * {@code ./scripts/demo.sh BootSettlementExample}: a fresh Postgres database and a private valkey-server from the test
 * kit, two application JVMs, then the slots and who settled them.
 */
public final class BootSettlementExample {

    private static final Duration RUN_FOR = Duration.ofSeconds(6);

    private BootSettlementExample() {}

    public static void main(String[] args) throws Exception {
        try (PostgresDatabase db = PostgresDatabases.forClass(BootSettlementExample.class);
                ValkeyServer valkey = ValkeyServers.standalone();
                Instances instances = new Instances(db, valkey)) {
            instances.start("a");
            instances.start("b");
            for (String name : instances.all().keySet()) {
                String[] ready = instances.awaitReady(name).split(" ");
                System.out.println("instance " + name + " up: http://127.0.0.1:" + ready[3]
                        + "/actuator/tenure (Flyway " + ready[5] + ", HikariCP " + ready[7] + ")");
            }
            Thread.sleep(RUN_FOR.toMillis());
            instances.close();
            report(db);
        }
    }

    private static void report(PostgresDatabase db) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            try (ResultSet r = s.executeQuery("SELECT slot, instance, epoch FROM settlement ORDER BY slot")) {
                while (r.next()) {
                    System.out.println(
                            r.getString(1) + "  settled by " + r.getString(2) + " under epoch " + r.getLong(3));
                }
            }
            try (ResultSet r = s.executeQuery("SELECT count(DISTINCT slot), count(*) - count(DISTINCT slot), "
                    + "count(DISTINCT instance) FROM settlement")) {
                r.next();
                System.out.println("slots settled: " + r.getLong(1) + ", settled twice: " + r.getLong(2)
                        + ", instances that settled: " + r.getLong(3));
            }
        }
    }
}
