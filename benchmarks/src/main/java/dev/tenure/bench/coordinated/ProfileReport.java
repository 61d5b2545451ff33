package dev.tenure.bench.coordinated;

import dev.tenure.bench.Format;
import dev.tenure.bench.ValkeyAdmin;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/** {@link PgProfile}'s tables: one per row, a summary, and the plans. Statement texts get ids S1, S2, ... once. */
final class ProfileReport {

    /** One row's window and what was read after it. */
    record Result(
            PgProfile.Spec spec,
            int units,
            ProfileWindow w,
            Map<String, Long> outcomes,
            long businessRows,
            Map<String, long[]> wal,
            int threads,
            String maintenance,
            Map<String, long[]> serverPlans) {

        double perUnit(double v) {
            return v / units;
        }

        Map<String, Long> driver() {
            return ProfileWindow.delta(w.begin.driver(), w.end.driver());
        }

        Map<String, Long> library() {
            return ProfileWindow.delta(w.begin.library(), w.end.library());
        }

        long statements() {
            return driver().entrySet().stream()
                    .filter(e -> e.getKey().startsWith("sql:"))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
        }

        long roundTrips() {
            return w.end.roundTrips() - w.begin.roundTrips();
        }

        /** Why pg_walinspect gave nothing, or null. */
        String walError() {
            return ProfileReport.walError(wal);
        }

        /** {records, bytes, fpi bytes} of this database's WAL, or null without pg_walinspect. */
        long[] ownWal() {
            if (wal.isEmpty() || wal.keySet().iterator().next().startsWith("error")) {
                return null;
            }
            long[] sum = new long[3];
            wal.forEach((k, v) -> {
                if (!k.equals("(cluster)")) {
                    for (int i = 0; i < 3; i++) {
                        sum[i] += v[i];
                    }
                }
            });
            return sum;
        }
    }

    private static final Map<String, String> IDS = new LinkedHashMap<>();

    private ProfileReport() {}

    /** Why a pg_walinspect result is empty, or null. */
    static String walError(Map<String, long[]> wal) {
        return wal.keySet().stream()
                .filter(k -> k.startsWith("error"))
                .findFirst()
                .orElse(wal.isEmpty() ? "no WAL in the window" : null);
    }

    static String id(String text) {
        return IDS.computeIfAbsent(text, t -> "S" + (IDS.size() + 1));
    }

    static void printRow(Result r, String walinspectError) {
        ProfileWindow w = r.w();
        System.out.println("== " + r.spec().name() + ": " + r.units() + " measured units, "
                + (r.threads() == 1 ? "one thread" : r.threads() + " executor threads") + " ==");
        System.out.println("outcomes in the window: " + r.outcomes() + "; business rows in the table: "
                + r.businessRows() + " (warm-up, window and plan units)");
        Format.Table t = new Format.Table("per unit", "value");
        t.row("wall time, us", us(w.seconds() / r.units()));
        t.row("units/s on one thread", Format.num(r.units() / w.seconds()));
        t.row("round trips", Format.num(r.perUnit(r.roundTrips())));
        t.row(
                "bytes sent / received",
                Format.num(r.perUnit(w.end.bytesOut() - w.begin.bytesOut())) + " / "
                        + Format.num(r.perUnit(w.end.bytesIn() - w.begin.bytesIn())));
        t.row("statements executed", Format.num(r.perUnit(r.statements())));
        t.row("commits", Format.num(r.perUnit(w.pg("xact_commit"))));
        t.row("rollbacks", Format.num(r.perUnit(w.pg("xact_rollback"))));
        t.row(
                "tuples inserted / updated / deleted",
                Format.num(r.perUnit(w.pg("tup_inserted"))) + " / " + Format.num(r.perUnit(w.pg("tup_updated"))) + " / "
                        + Format.num(r.perUnit(w.pg("tup_deleted"))));
        t.row(
                "tuples returned / fetched",
                Format.num(r.perUnit(w.pg("tup_returned"))) + " / " + Format.num(r.perUnit(w.pg("tup_fetched"))));
        t.row(
                "shared blocks hit / read",
                Format.num(r.perUnit(w.pg("blks_hit"))) + " / " + Format.num(r.perUnit(w.pg("blks_read"))));
        long[] own = r.ownWal();
        t.row(
                "WAL bytes / records, this database",
                own == null ? "-" : Format.num(r.perUnit(own[1])) + " / " + Format.num(r.perUnit(own[0])));
        t.row("WAL full-page-image bytes, this database", own == null ? "-" : Format.num(r.perUnit(own[2])));
        t.row(
                "WAL bytes less full-page images, this database",
                own == null ? "-" : Format.num(r.perUnit(own[1] - own[2])));
        long[] cluster = r.wal().get("(cluster)");
        t.row(
                "WAL bytes / records, cluster",
                Format.num(r.perUnit(w.end.lsn() - w.begin.lsn())) + " / "
                        + (cluster == null ? "-" : Format.num(r.perUnit(cluster[0]))));
        t.row("WAL records, cluster, pg_stat_wal", Format.num(r.perUnit(w.pg("wal_records"))));
        t.row("Postgres backend CPU, us", us(r.perUnit(w.backendCpu())));
        t.row("client JVM CPU, us", us(r.perUnit(w.end.jvmCpu() - w.begin.jvmCpu())));
        Map<String, Long> commands = ValkeyAdmin.delta(w.begin.valkey(), w.end.valkey());
        if (r.spec().valkey()) {
            t.row("valkey commands", Format.num(r.perUnit(ValkeyAdmin.total(commands))));
        }
        System.out.print(t.render());
        System.out.println(
                "  wall time: System.nanoTime over the window, the idle settles excluded. round trips: reads after a write on");
        System.out.println(
                "  pgjdbc's sockets (RoundTripSocketFactory), bytes on the same sockets. statements: execute* calls under the");
        System.out.println(
                "  pool (texts below). commits, rollbacks, tuples, blocks: pg_stat_database deltas, read from database postgres.");
        System.out.println("  WAL, this database: "
                + (own != null
                        ? "pg_walinspect, the records on its relations and their transactions'" + " commits."
                        : "pg_walinspect unavailable: " + (walinspectError != null ? walinspectError : r.walError())
                                + "."));
        System.out.println(
                "  full-page images: the first change of a page after a checkpoint writes the whole page, so they depend on");
        System.out.println("  when checkpoints fall (checkpoints of the cluster in the window and the settle after it: "
                + (long) w.pg("checkpoints") + "); compare rows without them.");
        System.out.println("  autovacuum in the window: " + r.maintenance()
                + ". Its workers' transactions count in commits, and a");
        System.out.println(
                "  worker visits the database every autovacuum_naptime even when it vacuums nothing (a commit or so).");
        System.out.println(
                "  WAL, cluster: pg_current_wal_insert_lsn() difference / every record in that range (pg_walinspect), all");
        System.out.println(
                "  databases of the server; pg_stat_wal's delta also holds the settle after the window. Postgres backend");
        System.out.println(
                "  CPU: /proc/<pid>/stat of the database's client backends. client JVM CPU: /proc/self/stat, all threads,");
        System.out.println("  JIT too."
                + (r.spec().valkey()
                        ? " valkey commands: INFO commandstats, " + describe(commands, r.units()) + "."
                        : ""));
        System.out.println();

        Format.Table s = new Format.Table("statement", "per unit", "executions");
        Map<String, Long> d = r.driver();
        d.entrySet().stream()
                .filter(e -> e.getKey().startsWith("sql:"))
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .forEach(e -> s.row(id(e.getKey().substring(4)), Format.num(r.perUnit(e.getValue())), e.getValue()));
        System.out.print(s.render());
        d.keySet().stream()
                .filter(k -> k.startsWith("sql:"))
                .map(k -> k.substring(4))
                .sorted((a, b) ->
                        Integer.compare(Integer.parseInt(id(a).substring(1)), Integer.parseInt(id(b).substring(1))))
                .forEach(k -> System.out.println("  " + id(k) + "  " + k));
        System.out.println();

        if (!r.serverPlans().isEmpty()) {
            Format.Table p = new Format.Table("prepared on the server", "generic plans", "custom plans");
            r.serverPlans().forEach((k, v) -> p.row(k.equals("COMMIT") || k.equals("BEGIN") ? k : id(k), v[0], v[1]));
            System.out.print(p.render());
            System.out.println(
                    "  pg_prepared_statements of the pool's connections after the row, warm-up and plan units included: a generic");
            System.out.println(
                    "  plan is planned once per connection and reused; a custom plan is planned at that execution.");
            System.out.println();
        }

        Map<String, Long> lib = r.library();
        Format.Table c = new Format.Table("JDBC call", "library -> pool, per unit", "pool -> pgjdbc, per unit");
        TreeSet<String> calls = new TreeSet<>(RecordingDataSource.callNames(lib));
        calls.addAll(RecordingDataSource.callNames(d));
        for (String k : calls) {
            c.row(
                    k,
                    Format.num(r.perUnit(lib.getOrDefault("call:" + k, 0L))),
                    Format.num(r.perUnit(d.getOrDefault("call:" + k, 0L))));
        }
        System.out.print(c.render());
        System.out.println(
                "  calls on connections and data sources (getters too; not every call reaches the server: the round trips above do).");
        System.out.println();

        if (own != null) {
            Format.Table wt =
                    new Format.Table("WAL by resource manager", "records/unit", "bytes/unit", "FPI bytes/unit");
            r.wal()
                    .forEach((k, v) -> wt.row(
                            k, Format.num(r.perUnit(v[0])), Format.num(r.perUnit(v[1])), Format.num(r.perUnit(v[2]))));
            System.out.print(wt.render());
            System.out.println(
                    "  pg_walinspect over the window's LSN range; (cluster): every record in it, other databases' too.");
            System.out.println();
        }
    }

    static void printSummary(List<Result> rs) {
        System.out.println("== Per unit, side by side ==");
        Format.Table t = new Format.Table(
                "row",
                "wall us",
                "units/s",
                "round trips",
                "statements",
                "commits",
                "rollbacks",
                "WAL bytes",
                "WAL records",
                "FPI bytes",
                "WAL less FPI",
                "PG CPU us",
                "JVM CPU us");
        for (Result r : rs) {
            ProfileWindow w = r.w();
            long[] own = r.ownWal();
            t.row(
                    r.spec().name(),
                    us(w.seconds() / r.units()),
                    Format.num(r.units() / w.seconds()),
                    Format.num(r.perUnit(r.roundTrips())),
                    Format.num(r.perUnit(r.statements())),
                    Format.num(r.perUnit(w.pg("xact_commit"))),
                    Format.num(r.perUnit(w.pg("xact_rollback"))),
                    own == null ? "-" : Format.num(r.perUnit(own[1])),
                    own == null ? "-" : Format.num(r.perUnit(own[0])),
                    own == null ? "-" : Format.num(r.perUnit(own[2])),
                    own == null ? "-" : Format.num(r.perUnit(own[1] - own[2])),
                    us(r.perUnit(w.backendCpu())),
                    us(r.perUnit(w.end.jvmCpu() - w.begin.jvmCpu())));
        }
        System.out.print(t.render());
        System.out.println(
                "  one client, one thread: wall us is the unit's latency, units/s its single-thread rate. WAL: this database's");
        System.out.println(
                "  records (pg_walinspect). PG CPU: the database's client backends (/proc), not the WAL writer's fsyncs.");
        System.out.println();
    }

    static void printPlans(PlanCapture plans) {
        System.out.println(
                "== Plans: EXPLAIN (ANALYZE, BUFFERS, WAL, COSTS OFF), parameters of a real execution, rolled back ==");
        System.out.println(
                "  taken on the warmed database just before a real execution of the statement after each row's window, on");
        System.out.println(
                "  its connection and in its transaction (a savepoint), then rolled back; each text once, in its first row.");
        for (Map.Entry<String, PlanCapture.Plan> e : plans.plans.entrySet()) {
            System.out.println();
            System.out.println(id(e.getKey()) + " (" + e.getValue().row() + "): " + e.getKey());
            e.getValue().lines().forEach(l -> System.out.println("    " + l));
        }
        System.out.println();
    }

    private static String describe(Map<String, Long> delta, int units) {
        StringBuilder sb = new StringBuilder();
        delta.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .forEach(e -> sb.append(sb.length() == 0 ? "" : " ")
                        .append(e.getKey())
                        .append('=')
                        .append(Format.num(e.getValue() / (double) units)));
        return sb.toString();
    }

    private static String us(double seconds) {
        return String.format(Locale.ROOT, "%.0f", seconds * 1e6);
    }
}
