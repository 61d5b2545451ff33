package dev.tenure.bench.coordinated;

import dev.tenure.bench.Format;
import dev.tenure.bench.ValkeyAdmin;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The scale benchmark's tables: cost per fire and the account of every fire per row, then how cost grows. */
final class ScaleReport {

    private ScaleReport() {}

    /** What the run was: printed above the table. */
    record Header(
            String command,
            String commit,
            String date,
            String loadBefore,
            String loadAfter,
            int periodSeconds,
            int warmupPeriods,
            int periods,
            int threads,
            int sweepMs,
            int graceMs,
            String policy,
            int unfired) {}

    static void progress(String name, ScaleRow r) {
        System.out.printf(
                Locale.ROOT,
                "# %s: %d of %d fires ran, %d MISSED, %d open, %d duplicate effects; "
                        + "start delay p99 %s ms; load %s%s%n",
                name,
                r.account().ran(),
                r.account().due(),
                r.account().missed(),
                r.account().open(),
                r.account().duplicates(),
                ms(r.account().delay().getValueAtPercentile(99)),
                r.load(),
                "; " + r.result());
        System.out.flush();
    }

    static void print(List<ScaleRow> rows, Header h) {
        double compression = 60.0 / h.periodSeconds();
        System.out.printf(
                Locale.ROOT,
                "== Scale: every node fires every job at its slot, Tenure runs each fire once; a one-minute "
                        + "schedule compressed to a %d s period (%.1fx); %d warm-up + %d measured periods per row; %d "
                        + "host-scheduler workers per node; sweep every %d ms; missed-fire policy %s, grace %d ms%s ==%n",
                h.periodSeconds(),
                compression,
                h.warmupPeriods(),
                h.periods(),
                h.threads(),
                h.sweepMs(),
                h.policy(),
                h.graceMs(),
                h.unfired() == 0 ? "" : "; SELF-CHECK: no node fires jobs 0.." + (h.unfired() - 1) + " in the window");
        System.out.println("command: " + h.command() + "; commit " + h.commit() + "; " + h.date() + "; load average "
                + h.loadBefore() + " before, " + h.loadAfter() + " after");
        Format.Table t = new Format.Table(
                "jobs",
                "nodes",
                "mode",
                "slots",
                "fires due",
                "ran",
                "dup",
                "MISSED",
                "open",
                "caught up",
                "held/fire",
                "done/fire",
                "runs in window",
                "PG stmts/fire",
                "PG commits/fire",
                "PG CPU us/fire",
                "valkey cmds/fire",
                "scripts/fire",
                "JVM CPU us/fire",
                "without JIT",
                "delay p50 ms",
                "p99 ms",
                "max ms",
                "sched lag p99 ms",
                "machine busy",
                "register s",
                "settled s",
                "load",
                "result");
        for (ScaleRow r : rows) {
            ScaleLedger.Account a = r.account();
            t.row(
                    r.jobs(),
                    r.nodes(),
                    r.mode(),
                    r.spread() ? "spread" : "aligned",
                    a.due(),
                    a.ran(),
                    a.duplicates(),
                    a.missed(),
                    a.open() + a.inconsistent(),
                    r.sum("w_catchups_executed"),
                    Format.num(r.perFire(r.sum("w_held"))),
                    Format.num(r.perFire(r.sum("w_done"))),
                    r.sum("units"),
                    Format.num(r.perRun(r.sum("executions"))),
                    Format.num(r.perRun(r.pg("xact_commit"))),
                    Format.num(r.perRun(r.pgCpu()) * 1e6),
                    r.mode().equals("VALKEY") ? Format.num(r.perRun(r.valkeyCommands())) : "-",
                    r.mode().equals("VALKEY") ? Format.num(r.perRun(ValkeyAdmin.scripts(r.valkey()))) : "-",
                    Format.num(r.perRun(r.nodesCpu()) * 1e6),
                    Format.num(r.perRun(r.nodesCpu() - r.jitCpu()) * 1e6),
                    ms(a.delay().getValueAtPercentile(50)),
                    ms(a.delay().getValueAtPercentile(99)),
                    ms(a.delay().getMaxValue()),
                    ms(r.lag().getValueAtPercentile(99)),
                    String.format(Locale.ROOT, "%.0f%%", 100 * r.machine()[0] / Math.max(1e-9, r.machine()[1])),
                    String.format(Locale.ROOT, "%.1f", r.max("register_s")),
                    Double.isNaN(r.settled()) ? "no" : String.format(Locale.ROOT, "%.1f", r.settled()),
                    r.load().split(" ")[0],
                    r.result());
        }
        System.out.print(t.render());
        System.out.println("""
                  Each row: every node registers every job (Tenure.register; a schedule per job: period P, offset j*P/jobs
                  when spread, 0 when aligned) and fires it at each slot on its pool of workers: runInTransaction(job, fire
                  key, skipFire(), ds, insert one business row). The schedules begin a second after every node has
                  registered; the warm-up periods follow, then the window. The sweeper handles overdue fires by the policy
                  in the title (catch-up: runs them through the coordinator with waitUpTo 30 s, as the Boot starter does).
                  fires due: jobs x measured periods. ran: COMPLETED with its business row. dup: business rows beyond the
                  first of a (job, fire), warm-up included. MISSED: recorded by the sweeper. open: neither, or a run and its
                  business row that disagree. caught up: window fires run by a catch-up. held/done per fire: the nodes'
                  attempts of window fires answered "held elsewhere" / "already done".
                  runs in window: EXECUTED runs that ended in the window, all nodes, catch-ups included (the fires due when
                  the nodes keep up). Costs per fire are window deltas / runs in window. PG stmts: JDBC execute* calls in
                  the nodes' connections, all of Tenure's (claims, completions, sweeps, elections, renewals). PG commits:
                  pg_stat_database.xact_commit. PG CPU: the database's client backends and the WAL writer (/proc).
                  valkey cmds: INFO commandstats, commands inside scripts included; scripts: EVALSHA/EVAL calls, one round
                  trip each. JVM CPU: all node processes; without JIT: less their C1/C2 compiler threads, which short-lived
                  JVMs still keep busy after a short warm-up (a long-running service stops paying them).
                  delay: job_run.started_at (database clock) minus the fire time, of the fires that ran. sched lag: fire
                  time to the worker's call, regular fires (the host scheduler's own queue). machine busy: /proc/stat,
                  every process on the machine. register s: the slowest node's registration of all jobs. settled s: from
                  the window's end until every job's swept_until reached its last window fire. load: 1-min, before the row.
                  result: FAILED with a dup, a disagreement, or an open fire although the sweeper had accounted for the
                  window (a silent miss); behind when the sweeper had not accounted for the window within --settle-s (its
                  open fires are overdue to Tenure: the nodes fell behind, or the policy leaves them open); else ok.""");
        for (ScaleRow r : rows) {
            String name = "  " + r.jobs() + " jobs, " + r.nodes() + " nodes, " + r.mode() + ", "
                    + (r.spread() ? "spread" : "aligned");
            if (r.mode().equals("VALKEY") && !r.valkey().isEmpty()) {
                StringBuilder sb = new StringBuilder();
                r.valkey().entrySet().stream()
                        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                        .forEach(e -> sb.append(' ')
                                .append(e.getKey())
                                .append('=')
                                .append(Format.num(r.perRun(e.getValue()))));
                System.out.println(name + ": valkey commands per fire:" + sb);
            }
            StringBuilder th = new StringBuilder();
            r.threads().entrySet().stream()
                    .filter(e -> e.getValue() > 0)
                    .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .limit(6)
                    .forEach(e -> th.append(' ')
                            .append(e.getKey())
                            .append(' ')
                            .append(Format.num(r.perRun(e.getValue()) * 1e6)));
            System.out.println(name + ": JVM CPU us/fire by thread group:" + th);
            r.account()
                    .problems()
                    .forEach((kind, fires) -> fires.forEach(f -> System.out.println(name + ": " + kind + ": " + f)));
            if (r.account().open() > 0 || r.account().overdue() > 0) {
                System.out.println(name + ": the sweeper's overdue count at its last sweep: "
                        + r.account().overdue());
            }
            if (r.firstError() != null) {
                System.out.println(name + ": first error: " + r.firstError());
            }
        }
        System.out.println();
        printGrowth(rows);
    }

    /** Each row's per-fire costs as multiples of the smallest row (fewest jobs, fewest nodes) of its mode and slots. */
    private static void printGrowth(List<ScaleRow> rows) {
        Format.Table t = new Format.Table(
                "row",
                "vs",
                "PG stmts/fire",
                "PG commits/fire",
                "PG CPU/fire",
                "valkey cmds/fire",
                "JVM CPU/fire",
                "delay p99");
        for (ScaleRow r : rows) {
            ScaleRow base = rows.stream()
                    .filter(b -> b.mode().equals(r.mode()) && b.spread() == r.spread())
                    .min(Comparator.comparingInt(ScaleRow::jobs).thenComparingInt(ScaleRow::nodes))
                    .orElse(r);
            t.row(
                    r.jobs() + " jobs, " + r.nodes() + " nodes, " + r.mode() + ", "
                            + (r.spread() ? "spread" : "aligned"),
                    base.jobs() + " jobs, " + base.nodes() + " nodes",
                    x(r.perRun(r.sum("executions")), base.perRun(base.sum("executions"))),
                    x(r.perRun(r.pg("xact_commit")), base.perRun(base.pg("xact_commit"))),
                    x(r.perRun(r.pgCpu()), base.perRun(base.pgCpu())),
                    r.mode().equals("VALKEY")
                            ? x(r.perRun(r.valkeyCommands()), base.perRun(base.valkeyCommands()))
                            : "-",
                    x(r.perRun(r.nodesCpu()), base.perRun(base.nodesCpu())),
                    x(
                            r.account().delay().getValueAtPercentile(99),
                            base.account().delay().getValueAtPercentile(99)));
        }
        System.out.println(
                "== How cost per fire grows with jobs and nodes (multiples of the smallest row of the same mode and slots) ==");
        System.out.print(t.render());
        System.out.println();
    }

    private static String x(double v, double base) {
        return base == 0 || Double.isNaN(base) || Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2fx", v / base);
    }

    private static String ms(double micros) {
        return String.format(Locale.ROOT, "%.1f", micros / 1000);
    }
}
