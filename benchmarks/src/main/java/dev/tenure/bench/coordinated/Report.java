package dev.tenure.bench.coordinated;

import dev.tenure.bench.Format;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The benchmark's tables: throughput with ratios to db-scheduler, cost per unit, and what bounds each row. */
final class Report {

    private Report() {}

    static void print(List<Row> rows, boolean syncOff, double seconds, int nodes) {
        String sync = syncOff
                ? "synchronous_commit=off on the benchmark's own connections (every library alike)"
                : "synchronous_commit=on (server default: every commit waits for its WAL flush)";
        Row peer = rows.stream()
                .filter(r -> r.scenario().kind().equals("dbscheduler"))
                .findFirst()
                .orElse(null);

        System.out.println(
                "== Throughput, " + sync + "; " + nodes + " nodes per row, " + Format.num(seconds) + " s window ==");
        Format.Table t = new Format.Table(
                "row",
                "nodes x threads",
                "units/s",
                "vs db-scheduler",
                "p50 ms",
                "p99 ms",
                "units per node min-max",
                "skipped held/unit",
                "skipped done/unit",
                "errors",
                "effect rows",
                "dup effects",
                "backlog left",
                "load avg");
        for (Row r : rows) {
            boolean lat = r.scenario().latency() && r.latency().getTotalCount() > 0;
            t.row(
                    r.scenario().name(),
                    nodes + " x " + r.scenario().threads(),
                    Format.num(r.perSecond()),
                    peer == null || peer.units() == 0
                            ? "-"
                            : String.format(Locale.ROOT, "%.2f", r.perSecond() / peer.perSecond()),
                    lat ? ms(r.latency().getValueAtPercentile(50)) : "-",
                    lat ? ms(r.latency().getValueAtPercentile(99)) : "-",
                    r.minPerNode() + "-" + r.maxPerNode(),
                    Format.num(r.perUnit(r.held())),
                    Format.num(r.perUnit(r.done())),
                    r.errors(),
                    r.effects(),
                    r.duplicates(),
                    r.backlogLeft() < 0 ? "-" : Long.toString(r.backlogLeft()),
                    r.load().split(" ")[0]);
        }
        System.out.print(t.render());
        System.out.println(
                "  units/s: units completed inside the window by all nodes together; a unit is one EXECUTED Tenure run, one");
        System.out.println(
                "  db-scheduler execution, one Quartz fire, one ShedLock lock+insert+unlock, each with one business row committed.");
        System.out.println(
                "  p50/p99: one unit from the call to its return (Tenure: run(); ShedLock: lock to unlock); '-' for schedulers");
        System.out.println(
                "  (time in a backlog is no latency). skipped held: attempts refused because another node held the job (the");
        System.out.println(
                "  one-job rows ask again for the same fire after a pause); skipped done: attempts of a fire another node had");
        System.out.println(
                "  completed (shared fires). effect rows / dup effects: business rows of the whole row (warm-up included) and");
        System.out.println(
                "  rows beyond the first for the same (job, fire). backlog left: due executions/triggers not yet run at the end");
        System.out.println(
                "  (0 would mean the scheduler ran dry and its rate is a lower bound). load avg: 1-min, before the row.");
        for (Row r : rows) {
            if (r.firstError() != null) {
                System.out.println("  first error, " + r.scenario().name() + ": " + r.firstError());
            }
        }
        System.out.println();

        System.out.println("== Database work per unit (" + (syncOff ? "sync off" : "sync on") + ") ==");
        Format.Table c = new Format.Table(
                "row",
                "commits/unit",
                "beyond business tx",
                "exact: commits/row",
                "commits/attempt",
                "rollbacks/unit",
                "JDBC stmts/unit",
                "commit() calls/unit",
                "rows ins/upd/del per unit",
                "WAL bytes/unit",
                "valkey cmds/unit",
                "what one unit executes");
        for (Row r : rows) {
            double attempts = r.units() + r.held() + r.done();
            c.row(
                    r.scenario().name(),
                    Format.num(r.perUnit(r.pg("xact_commit"))),
                    Format.num(r.perUnit(r.pg("xact_commit")) - 1),
                    Format.num(r.lifetimePerEffect("xact_commit")),
                    attempts == 0 ? "-" : Format.num(r.pg("xact_commit") / attempts),
                    Format.num(r.perUnit(r.pg("xact_rollback"))),
                    Format.num(r.perUnit(r.executions())),
                    Format.num(r.perUnit(r.clientCommits())),
                    Format.num(r.perUnit(r.pg("tup_inserted"))) + " / " + Format.num(r.perUnit(r.pg("tup_updated")))
                            + " / " + Format.num(r.perUnit(r.pg("tup_deleted"))),
                    Format.num(r.perUnit(r.pg("wal_bytes"))),
                    r.scenario().valkey() ? Format.num(r.perUnit(r.valkeyCommands())) : "-",
                    r.scenario().unit());
        }
        System.out.print(c.render());
        System.out.println(
                "  commits/unit: delta of pg_stat_database.xact_commit of the benchmark's own database over the window (nothing");
        System.out.println(
                "  else uses it; statistics are read from another database) / units; skipped attempts and pollers count too.");
        System.out.println(
                "  beyond business tx: commits/unit - 1, the one transaction that inserts the business row. exact: commits/row:");
        System.out.println(
                "  the same over the nodes' whole lives (start-up and warm-up included) per business row, read when every node's");
        System.out.println(
                "  backends had exited (so no statistic is still unreported; window figures can be off by a second's worth of");
        System.out.println(
                "  an idle pooled connection's pending statistics). commits/attempt: window commits / (units + skipped attempts).");
        System.out.println("  JDBC stmts: execute*");
        System.out.println(
                "  calls counted in the nodes' connections (client side); commit() calls: explicit commits (autocommit statements");
        System.out.println(
                "  commit without one). rows: tup_inserted / tup_updated / tup_deleted deltas. valkey cmds: INFO commandstats");
        System.out.println(
                "  delta of the private server (commands inside scripts included) / units. WAL bytes: pg_stat_wal.wal_bytes delta");
        System.out.println("  / units, cluster-wide (other databases' writes included: an upper bound).");
        for (Row r : rows) {
            if (r.scenario().valkey() && r.units() > 0) {
                System.out.println("  valkey commands per unit, " + r.scenario().name() + ": "
                        + r.valkey().entrySet().stream()
                                .map(e -> e.getKey() + "=" + Format.num(r.perUnit(e.getValue())))
                                .reduce((a, b) -> a + " " + b)
                                .orElse("-"));
            }
        }
        System.out.println();

        System.out.println("== What bounds each row (" + (syncOff ? "sync off" : "sync on") + ") ==");
        Format.Table b = new Format.Table(
                "row",
                "machine CPU busy",
                "nodes' JVMs",
                "postgres backends",
                "valkey-server",
                "commits/s",
                "WAL fsyncs/s (cluster)",
                "commits/fsync",
                "JVM CPU us/unit",
                "without JIT",
                "PG CPU us/unit",
                "PG active ms/s");
        for (Row r : rows) {
            double w = r.seconds();
            double syncs = r.pg("wal_sync");
            b.row(
                    r.scenario().name(),
                    pct(r.machineBusy() / w / r.machineCores()) + " of " + Format.num(r.machineCores()) + " cores",
                    cores(r.nodesCpu() / w),
                    cores(r.pgCpu() / w),
                    r.scenario().valkey() ? cores(r.valkeyCpu() / w) : "-",
                    Format.num(r.pg("xact_commit") / w),
                    Format.num(syncs / w),
                    syncs == 0 ? "-" : Format.num(r.pg("xact_commit") / syncs),
                    Format.num(r.perUnit(r.nodesCpu()) * 1e6),
                    Format.num(r.perUnit(r.nodesCpu() - r.jitCpu()) * 1e6),
                    Format.num(r.perUnit(r.pgCpu()) * 1e6),
                    Format.num(r.pg("active_time") / w));
        }
        System.out.print(b.render());
        System.out.println(
                "  machine CPU busy: /proc/stat over the window, all processes of the machine (other engineers' builds too).");
        System.out.println(
                "  nodes' JVMs / postgres backends / valkey-server: CPU (user+system) of those processes in cores (1.00 = one core");
        System.out.println(
                "  busy all window); postgres backends = the client backends on the benchmark database plus the WAL writer.");
        System.out.println(
                "  WAL fsyncs/s: pg_stat_wal.wal_sync, cluster-wide (other databases on the shared server add to it); with");
        System.out.println(
                "  synchronous_commit=on each commit waits for one of them, and one fsync can cover many commits (group commit).");
        System.out.println(
                "  without JIT: the nodes' CPU less their C1/C2 compiler threads, which short-lived JVMs on a busy machine still");
        System.out.println("  keep busy after the warm-up (a long-running service stops paying it).");
        System.out.println(
                "  PG active ms/s: pg_stat_database.active_time delta per second of window (time backends spent executing statements).");
        System.out.println(
                "  backends by state (pg_stat_activity every 50 ms; average number of the benchmark database's client backends):");
        for (Row r : rows) {
            StringBuilder sb = new StringBuilder();
            r.waits().entrySet().stream()
                    .filter(e -> !e.getKey().equals("samples"))
                    .sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
                    .limit(8)
                    .forEach(e -> sb.append(sb.length() == 0 ? "" : ", ")
                            .append(e.getKey())
                            .append(' ')
                            .append(Format.num(r.backends(e.getKey()))));
            System.out.println("    " + r.scenario().name() + ": " + sb);
        }
        System.out.println(
                "  JVM CPU per unit by thread group (all nodes; /proc/<pid>/task, names as Linux keeps them, digits as #):");
        for (Row r : rows) {
            if (r.units() == 0) {
                continue;
            }
            StringBuilder sb = new StringBuilder();
            r.nodeThreads().entrySet().stream()
                    .filter(e -> e.getValue() > 0)
                    .sorted((x, y) -> Double.compare(y.getValue(), x.getValue()))
                    .limit(7)
                    .forEach(e -> sb.append(sb.length() == 0 ? "" : ", ")
                            .append(e.getKey())
                            .append(' ')
                            .append(Format.num(r.perUnit(e.getValue()) * 1e6)));
            System.out.println("    " + r.scenario().name() + " (us/unit): " + sb);
        }
        System.out.println();
    }

    static void printSyncEffect(List<Row> rows) {
        System.out.println("== The fsync's share: the same rows with synchronous_commit on and off ==");
        Format.Table t =
                new Format.Table("row", "units/s sync on", "units/s sync off", "off / on", "p50 ms on", "p50 ms off");
        for (Row on : rows) {
            if (on.syncOff()) {
                continue;
            }
            Row off = rows.stream()
                    .filter(r -> r.syncOff()
                            && r.scenario().name().equals(on.scenario().name()))
                    .findFirst()
                    .orElse(null);
            if (off == null) {
                continue;
            }
            boolean lat = on.scenario().latency()
                    && on.latency().getTotalCount() > 0
                    && off.latency().getTotalCount() > 0;
            t.row(
                    on.scenario().name(),
                    Format.num(on.perSecond()),
                    Format.num(off.perSecond()),
                    String.format(Locale.ROOT, "%.2f", off.perSecond() / on.perSecond()),
                    lat ? ms(on.latency().getValueAtPercentile(50)) : "-",
                    lat ? ms(off.latency().getValueAtPercentile(50)) : "-");
        }
        System.out.print(t.render());
        System.out.println(
                "  a ratio near 1 means the WAL flush does not bound the row (CPU or locks do); far above 1 means it does.");
        System.out.println();
    }

    /** Each observed Tenure row next to the same row unobserved, measured back to back in this run. */
    static void printObservationCost(List<Row> rows) {
        System.out.println("== Observation cost: Tenure rows with and without an ObservationRegistry ==");
        Format.Table t = new Format.Table(
                "row",
                "sync",
                "units/s without",
                "units/s with",
                "with / without",
                "p50 ms without",
                "p50 ms with",
                "p99 ms without",
                "p99 ms with",
                "node CPU us/unit without",
                "with",
                "load avg");
        for (Row with : rows) {
            Scenario sc = with.scenario();
            if (sc.unobservedName().equals(sc.name())) {
                continue;
            }
            Row without = rows.stream()
                    .filter(r ->
                            r.syncOff() == with.syncOff() && r.scenario().name().equals(sc.unobservedName()))
                    .findFirst()
                    .orElse(null);
            if (without == null) {
                continue;
            }
            boolean lat =
                    with.latency().getTotalCount() > 0 && without.latency().getTotalCount() > 0;
            t.row(
                    sc.name(),
                    with.syncOff() ? "off" : "on",
                    Format.num(without.perSecond()),
                    Format.num(with.perSecond()),
                    String.format(Locale.ROOT, "%.3f", with.perSecond() / without.perSecond()),
                    lat ? ms(without.latency().getValueAtPercentile(50)) : "-",
                    lat ? ms(with.latency().getValueAtPercentile(50)) : "-",
                    lat ? ms(without.latency().getValueAtPercentile(99)) : "-",
                    lat ? ms(with.latency().getValueAtPercentile(99)) : "-",
                    String.format(Locale.ROOT, "%.0f", without.perUnit(without.nodesCpu()) * 1e6),
                    String.format(Locale.ROOT, "%.0f", with.perUnit(with.nodesCpu()) * 1e6),
                    without.load().split(" ")[0] + " / " + with.load().split(" ")[0]);
        }
        System.out.print(t.render());
        Format.Table m = new Format.Table(
                "row",
                "observations",
                "sync",
                "rounds",
                "median with / without",
                "median node CPU us/unit without",
                "with");
        java.util.Map<String, List<Row[]>> pairs = new java.util.TreeMap<>();
        for (Row with : rows) {
            Scenario sc = with.scenario();
            rows.stream()
                    .filter(r -> !sc.unobservedName().equals(sc.name())
                            && r.syncOff() == with.syncOff()
                            && r.scenario().name().equals(sc.unobservedName()))
                    .findFirst()
                    .ifPresent(without -> pairs.computeIfAbsent(
                                    sc.baseName() + "|" + sc.observations() + "|" + (with.syncOff() ? "off" : "on"),
                                    k -> new ArrayList<>())
                            .add(new Row[] {without, with}));
        }
        pairs.forEach((k, ps) -> {
            String[] p = k.split("\\|");
            m.row(
                    p[0],
                    p[1],
                    p[2],
                    Integer.toString(ps.size()),
                    String.format(
                            Locale.ROOT,
                            "%.3f",
                            median(ps.stream().mapToDouble(x -> x[1].perSecond() / x[0].perSecond()))),
                    String.format(
                            Locale.ROOT,
                            "%.0f",
                            median(ps.stream().mapToDouble(x -> x[0].perUnit(x[0].nodesCpu()) * 1e6))),
                    String.format(
                            Locale.ROOT,
                            "%.0f",
                            median(ps.stream().mapToDouble(x -> x[1].perUnit(x[1].nodesCpu()) * 1e6))));
        });
        System.out.print(m.render());
        System.out.println(
                "  with / without: throughput ratio of the observed row to the same row unobserved, run back to back; "
                        + "+tracing also keeps each run's trace id on its row (in the statement that starts the run). load avg: 1-min, before each row.");
        System.out.println();
    }

    private static double median(java.util.stream.DoubleStream values) {
        double[] v = values.sorted().toArray();
        return v.length == 0
                ? Double.NaN
                : v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / 1e6);
    }

    private static String pct(double v) {
        return String.format(Locale.ROOT, "%.0f%%", 100 * v);
    }

    private static String cores(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
