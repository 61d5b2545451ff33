package dev.tenure.bench.coordinated;

import dev.tenure.bench.Options;
import dev.tenure.bench.ValkeyAdmin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scale (issue 23, item 5): many jobs on one schedule, every node firing every job at its slot as {@code @Scheduled}
 * on every instance does, and Tenure running each fire once. Per row (jobs x nodes x mode x slots) it starts the
 * nodes ({@link ScheduledWorkload}), lets them register and fire through a warm-up, measures whole periods, waits until
 * the sweeper has accounted for every fire of the window, stops the nodes and reads the ledger
 * ({@link ScaleLedger}). Costs are window deltas per fire due: statements counted in the nodes' connections, commits
 * ({@code pg_stat_database}), CPU of the Postgres backends, of the node JVMs ({@code /proc}) and Valkey commands
 * ({@code INFO commandstats}). Run by {@code benchmarks/run-scale.sh} on a database and valkey-server of its own.
 */
public final class ScaleBenchmark {

    private static final String USAGE = """
            usage: ScaleBenchmark --db NAME --valkey-port P [options]
              --pg-host H --pg-port P --pg-user U   Postgres (default 127.0.0.1 5432 postgres; trust auth)
              --valkey-port P --valkey-pid PID      the private valkey-server (never 6379) and its pid (for its CPU)
              --jobs LIST          jobs per row (default 1000,10000)
              --nodes LIST         node processes per row (default 3,8)
              --modes LIST         VALKEY, DATABASE or both (default VALKEY,DATABASE)
              --slots LIST         spread (job j fires at j*period/jobs into each period, as cron jobs spread over a
                                   minute), aligned (every job at the period's top) or both (default spread)
              --period-s S         the schedule's period (default 20: a one-minute schedule compressed 3x)
              --warmup-periods N   periods fired before the window (default 1), after every node registered
              --periods N          measured periods (default 2)
              --threads T          each node's host-scheduler workers (default 4; pool of T+3 connections)
              --sweep-ms M         Tenure's sweep interval (default 5000, Tenure's default)
              --grace-ms M         the jobs' MissedFirePolicy grace (default 5000, Tenure's default)
              --policy P           the jobs' MissedFirePolicy: catch-up (default, Tenure's), skip or alert-only
              --unfired K          a self-check: no node fires jobs 0..K-1 in the window (default 0), so the sweeper
                                   must catch them up (catch-up), record them MISSED (skip) or leave them open
                                   (alert-only: the row is then not settled)
              --settle-s S         how long to wait after the window for the sweeper to account for it (default 30)
              --history-per-job N  COMPLETED runs per job in the ledger before each row (default 20)
              --node-heap SIZE     -Xmx of each node (default 256m)
              --command TEXT --commit TEXT   printed with the table (run-scale.sh passes them)
            """;

    private final Map<String, String> opt = new TreeMap<>();
    private final List<ScaleRow> rows = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        ScaleBenchmark b = new ScaleBenchmark();
        try {
            Options.parse(args).forEach((k, v) -> b.opt.put(k.substring(2), v));
        } catch (IllegalArgumentException e) {
            System.err.print(USAGE);
            System.exit(2);
        }
        if (!b.opt.containsKey("db")
                || !b.opt.containsKey("valkey-port")
                || b.opt.get("valkey-port").equals("6379")) {
            System.err.print(USAGE);
            System.exit(2);
        }
        b.run();
        System.out.flush();
        System.exit(0);
    }

    private String get(String key, String dflt) {
        return opt.getOrDefault(key, dflt);
    }

    private int num(String key, int dflt) {
        return Integer.parseInt(get(key, Integer.toString(dflt)));
    }

    private List<String> list(String key, String dflt) {
        return Arrays.asList(get(key, dflt).split(","));
    }

    private void run() throws Exception {
        String start = Instant.now().toString();
        String loadBefore = Proc.loadAverage();
        Path logs = Files.createTempDirectory("tenure-scale-");
        String pgUser = get("pg-user", "postgres");
        try (PgAdmin pg = new PgAdmin(get("pg-host", "127.0.0.1"), num("pg-port", 5432), get("db", null), pgUser);
                ValkeyAdmin valkey = new ValkeyAdmin("127.0.0.1", num("valkey-port", -1))) {
            System.out.println("== Tenure scale benchmark ==");
            boolean pgss = pg.setting("shared_preload_libraries").contains("pg_stat_statements");
            System.out.println(
                    "postgres   " + pg.serverVersion() + ", database " + pg.db() + " (created for this run); "
                            + "statements are counted in the nodes' connections (pg_stat_statements is "
                            + (pgss ? "loaded but not read here)" : "not in shared_preload_libraries)"));
            System.out.println("valkey     " + valkey.serverField("valkey_version") + " on 127.0.0.1:"
                    + get("valkey-port", "") + " (private); node logs in " + logs);
            System.out.println();
            pg.createSchemas();
            for (String jobs : list("jobs", "1000,10000")) {
                for (String nodes : list("nodes", "3,8")) {
                    for (String mode : list("modes", "VALKEY,DATABASE")) {
                        for (String slots : list("slots", "spread")) {
                            String name = jobs + " jobs, " + nodes + " nodes, " + mode + ", " + slots;
                            try {
                                ScaleRow r = measure(
                                        pg,
                                        valkey,
                                        Integer.parseInt(jobs),
                                        Integer.parseInt(nodes),
                                        mode,
                                        slots.equals("spread"),
                                        logs);
                                rows.add(r);
                                ScaleReport.progress(name, r);
                            } catch (Exception e) {
                                System.out.println("# " + name + " FAILED: " + e);
                            }
                        }
                    }
                }
            }
        }
        System.out.println();
        ScaleReport.print(
                rows,
                new ScaleReport.Header(
                        get("command", "ScaleBenchmark " + String.join(" ", argsShown())),
                        get("commit", "?"),
                        start,
                        loadBefore,
                        Proc.loadAverage(),
                        num("period-s", 20),
                        num("warmup-periods", 1),
                        num("periods", 2),
                        num("threads", 4),
                        num("sweep-ms", 5000),
                        num("grace-ms", 5000),
                        get("policy", "catch-up"),
                        num("unfired", 0)));
    }

    private List<String> argsShown() {
        List<String> a = new ArrayList<>();
        opt.forEach((k, v) -> a.add("--" + k + " " + v));
        return a;
    }

    private ScaleRow measure(
            PgAdmin pg, ValkeyAdmin valkey, int jobs, int nodes, String mode, boolean spread, Path logs)
            throws Exception {
        Duration period = Duration.ofSeconds(num("period-s", 20));
        SlotSchedule[] schedules = new SlotSchedule[jobs];
        for (int j = 0; j < jobs; j++) {
            schedules[j] = new SlotSchedule(period, SlotSchedule.offset(j, jobs, period, spread), new AtomicLong(0));
        }
        String table = "effect_scale_" + (rows.size() + 1) + "_" + System.currentTimeMillis() % 100000;
        pg.createEffectTable(table);
        pg.resetTenure(jobs, num("history-per-job", 20));
        String load = Proc.loadAverage();
        pg.awaitNoBackends(10);
        List<NodeProcess> ps = new ArrayList<>();
        try {
            for (int n = 0; n < nodes; n++) {
                Map<String, String> args = new LinkedHashMap<>();
                args.put("kind", "scheduled");
                args.put("node", Integer.toString(n));
                args.put("nodes", Integer.toString(nodes));
                args.put("url", pg.url());
                args.put("user", get("pg-user", "postgres"));
                args.put("threads", get("threads", "4"));
                args.put("jobs", Integer.toString(jobs));
                args.put("table", table);
                args.put("sync", "on");
                args.put("valkey", "127.0.0.1:" + get("valkey-port", ""));
                args.put("mode", mode);
                args.put("periodMs", Long.toString(period.toMillis()));
                args.put("slots", spread ? "spread" : "aligned");
                args.put("sweepMs", get("sweep-ms", "5000"));
                args.put("graceMs", get("grace-ms", "5000"));
                args.put("policy", get("policy", "catch-up"));
                args.put("unfired", get("unfired", "0"));
                String log = "scale-" + jobs + "-" + nodes + "-" + mode + "-" + (spread ? "spread" : "aligned")
                        + "-node" + n + ".log";
                ps.add(new NodeProcess(
                        List.of(
                                "-Xmx" + get("node-heap", "256m"),
                                "-XX:+UseParallelGC",
                                "-Dorg.slf4j.simpleLogger.log.dev.tenure.MissedFires=info"),
                        args,
                        logs.resolve(log)));
            }
            for (NodeProcess p : ps) {
                p.await("READY", 900);
            }
            // the schedules begin a second from now (every node has its GO by then), mid-period as an application
            // starts
            long p = period.toMillis();
            long nowMs = System.currentTimeMillis();
            long nowNs = System.nanoTime();
            long origin = nowMs + 1000;
            long w0 = origin + num("warmup-periods", 1) * p;
            long w1 = w0 + num("periods", 2) * p;
            long warmEnd = nowNs + (w0 - nowMs) * 1_000_000L;
            long end = nowNs + (w1 - nowMs) * 1_000_000L;
            for (NodeProcess n : ps) {
                n.send("GO " + warmEnd + " " + end + " " + w0 + " " + w1 + " " + origin);
            }
            Tally.sleepUntil(warmEnd);
            Snapshot a = Snapshot.take(pg, valkey, ps, Set.of(), Long.parseLong(get("valkey-pid", "-1")));
            Tally.sleepUntil(end);
            Snapshot b = Snapshot.take(pg, valkey, ps, a.pgCpu().keySet(), Long.parseLong(get("valkey-pid", "-1")));
            ScaleLedger ledger = new ScaleLedger(pg.url(), get("pg-user", "postgres"));
            double settled = ledger.awaitSwept(schedules, w1, Duration.ofSeconds(num("settle-s", 30)));
            for (NodeProcess n : ps) {
                n.send("STOP");
            }
            List<Map<String, String>> results = new ArrayList<>();
            for (NodeProcess n : ps) {
                results.add(NodeProcess.parse(n.await("RESULT", 120)));
            }
            for (NodeProcess n : ps) {
                n.close();
            }
            ScaleLedger.Account account = ledger.account(schedules, w0, w1, table);
            Map<String, Double> threads = Proc.groupDelta(a.threads(), b.threads());
            Map<String, Double> pgDelta = new LinkedHashMap<>();
            b.pg().forEach((k, v) -> pgDelta.put(k, v - a.pg().getOrDefault(k, 0.0)));
            return new ScaleRow(
                    jobs,
                    nodes,
                    mode,
                    spread,
                    load,
                    (b.at() - a.at()) / 1e9,
                    results,
                    pgDelta,
                    ValkeyAdmin.delta(a.valkey(), b.valkey()),
                    new double[] {b.machine()[0] - a.machine()[0], b.machine()[1] - a.machine()[1]},
                    b.nodesCpu() - a.nodesCpu(),
                    threads,
                    Proc.delta(a.pgCpu(), b.pgCpu()),
                    b.valkeyCpu() - a.valkeyCpu(),
                    settled,
                    account);
        } finally {
            for (NodeProcess n : ps) {
                n.close();
            }
        }
    }

    /** Everything read at one end of the window (the same sources as the coordinated benchmark's rows). */
    record Snapshot(
            long at,
            double[] machine,
            double nodesCpu,
            Map<Long, Proc.Task> threads,
            Map<Long, Double> pgCpu,
            double valkeyCpu,
            Map<String, Double> pg,
            Map<String, Long> valkey) {

        /** {@code backends}: the Postgres processes of the window's start, read again at its end. */
        static Snapshot take(PgAdmin pg, ValkeyAdmin valkey, List<NodeProcess> ps, Set<Long> backends, long valkeyPid)
                throws Exception {
            long at = System.nanoTime();
            double[] machine = Proc.machine();
            double nodesCpu = 0;
            for (NodeProcess p : ps) {
                nodesCpu += Proc.cpuSeconds(p.pid());
            }
            return new Snapshot(
                    at,
                    machine,
                    nodesCpu,
                    Proc.tasks(ps.stream().map(NodeProcess::pid).toList()),
                    pg.backendCpu(backends),
                    valkeyPid > 0 ? Proc.cpuSeconds(valkeyPid) : 0,
                    pg.counters(),
                    valkey.commandCalls());
        }
    }
}
