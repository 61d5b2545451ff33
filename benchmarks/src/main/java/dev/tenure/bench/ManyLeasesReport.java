package dev.tenure.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.DatabaseConfig;
import dev.tenure.ValkeyConfig;
import dev.tenure.bench.coordinated.Pools;
import dev.tenure.bench.coordinated.Proc;
import dev.tenure.db.JdbcBackend;
import dev.tenure.db.TenureSchema;
import dev.tenure.spi.LeaseStore;
import dev.tenure.valkey.GlideBackend;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs {@link ManyLeases} on each store of {@code --many-stores} and prints one table. The database store works on a
 * database of its own, created on the Postgres at {@code --pg-host:--pg-port} and dropped at the end.
 */
final class ManyLeasesReport {

    private ManyLeasesReport() {}

    static void run(BenchConfig cfg, ValkeyAdmin admin) throws Exception {
        List<ManyLeases.Result> results = new ArrayList<>();
        List<String> loads = new ArrayList<>();
        for (String store : cfg.manyStores) {
            switch (store) {
                case "valkey" ->
                    results.add(ManyLeases.run(
                            "valkey",
                            new GlideBackend()
                                    .open(ValkeyConfig.standalone(cfg.host() + ":" + cfg.port())
                                            .requestTimeout(cfg.requestTimeout())
                                            .clientName("bench-many")
                                            .build()),
                            cfg,
                            () -> scriptCalls(admin),
                            admin));
                case "db" -> results.add(database(cfg));
                default -> throw new IllegalArgumentException("unknown store " + store + " (valkey, db)");
            }
            loads.add(store + " " + Proc.loadAverage());
        }
        print(cfg, results, loads);
    }

    private static long scriptCalls(ValkeyAdmin admin) {
        try {
            return ValkeyAdmin.scripts(admin.commandCalls());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ManyLeases.Result database(BenchConfig cfg) throws Exception {
        String base = "jdbc:postgresql://" + cfg.pgHost + ":" + cfg.pgPort + "/";
        String db = "tenure_many_" + cfg.runId.replaceAll("[^A-Za-z0-9]", "_").toLowerCase(Locale.ROOT);
        try (Connection admin = DriverManager.getConnection(base + "postgres", cfg.pgUser, null)) {
            exec(admin, "CREATE DATABASE " + db);
            try (HikariDataSource ds = Pools.create(base + db, cfg.pgUser, 8, false, "bench-many")) {
                TenureSchema.migrate(ds);
                LeaseStore store = new JdbcBackend()
                        .open(ds, TenureSchema.DEFAULT_SCHEMA, false, null, DatabaseConfig.defaults())
                        .leaseStore();
                return ManyLeases.run("db", store, cfg, () -> commits(admin, db), null);
            } finally {
                exec(admin, "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
            }
        }
    }

    /** Committed transactions of {@code db} so far (read over another database's connection). */
    private static long commits(Connection admin, String db) {
        try (Statement s = admin.createStatement()) {
            s.execute("SELECT pg_stat_clear_snapshot()");
            try (ResultSet rs =
                    s.executeQuery("SELECT xact_commit FROM pg_stat_database WHERE datname = '" + db + "'")) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void exec(Connection c, String sql) throws Exception {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static void print(BenchConfig cfg, List<ManyLeases.Result> results, List<String> loads) {
        System.out.println();
        System.out.println("== Scenario C: ManyLeases (" + cfg.manyLeases + " leases held by one JVM, TTL "
                + Format.ms(cfg.manyTtl) + ", renewed by the watchdog; " + cfg.manyDuration.toSeconds()
                + " s window) ==");
        Format.Table t = new Format.Table(
                "store",
                "leases",
                "periods",
                "renewals",
                "refused",
                "failed",
                "lost",
                "renewals/period",
                "store calls/period",
                "renew p50 ms",
                "renew p99 ms",
                "renew max ms",
                "watchdog CPU ms/s",
                "JVM CPU ms/s",
                "% of one core");
        for (ManyLeases.Result r : results) {
            double periods = r.periods();
            double jvm = r.cpu().clientSeconds() * 1000 / r.seconds();
            t.row(
                    r.store(),
                    r.leases(),
                    Format.num(periods),
                    r.renewals(),
                    r.refused(),
                    r.failed(),
                    r.lost(),
                    Format.num(r.renewals() / periods),
                    r.calls() < 0 ? "-" : Format.num(r.calls() / periods),
                    ms(r.latency().getValueAtPercentile(50), r),
                    ms(r.latency().getValueAtPercentile(99), r),
                    ms(r.latency().getMaxValue(), r),
                    Format.num(r.watchdogCpuSeconds() * 1000 / r.seconds()),
                    Format.num(jvm),
                    Format.num(jvm / 10) + "%");
        }
        System.out.print(t.render());
        System.out.println(
                "  periods: window / renewal period (TTL/3). store calls/period: Valkey script calls (EVALSHA, INFO commandstats),");
        System.out.println(
                "  or database commits (pg_stat_database.xact_commit) in the window, per period. renew ms: from the watchdog's");
        System.out.println(
                "  call to the store's answer. watchdog CPU: the tenure-watchdog thread (ThreadMXBean). JVM CPU: every thread");
        System.out.println(
                "  of this JVM without the JIT compiler (/proc/self/task), i.e. watchdog + client + store threads.");
        for (ManyLeases.Result r : results) {
            System.out.println("  client CPU ms/s by thread, " + r.store() + ": "
                    + r.cpu().perUnit(Math.round(r.seconds() * 1000)));
            if (!r.commands().isEmpty()) {
                System.out.println(
                        "  commands in the window, " + r.store() + ": " + ValkeyAdmin.describe(r.commands()));
            }
            if (r.firstError() != null) {
                System.out.println("  first error, " + r.store() + ": " + r.firstError());
            }
        }
        System.out.println("  load average at the end of each row: " + String.join("; ", loads));
        System.out.println();
    }

    private static String ms(long nanos, ManyLeases.Result r) {
        return r.latency().getTotalCount() == 0 ? "-" : Format.num(nanos / 1e6);
    }
}
