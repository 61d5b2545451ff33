package dev.tenure.bench.coordinated;

import dev.tenure.bench.Format;
import dev.tenure.bench.Options;
import dev.tenure.bench.ValkeyAdmin;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.HdrHistogram.Histogram;

/**
 * Coordinated runs of Tenure next to db-scheduler, a clustered Quartz JDBC store and ShedLock's JDBC provider, on one
 * Postgres database (created for the run by {@code benchmarks/run-coordinated.sh}) and one private valkey-server, in
 * one run. Every scenario runs on {@code --nodes} child JVMs ({@link Node}); each counts its units over the same
 * window, and this process reads the database's {@code pg_stat_database} counters and the CPU of every process
 * involved at the window's two ends. Prints plain-text tables.
 */
public final class CoordinatedBenchmark {

    private static final String USAGE = """
            usage: CoordinatedBenchmark --db NAME --valkey-port P [options]
              --pg-host H --pg-port P --pg-user U   Postgres (default 127.0.0.1 5432 postgres; trust auth)
              --db NAME            the benchmark's own database (created and dropped by run-coordinated.sh)
              --valkey-port P      the private valkey-server (never 6379); --valkey-pid PID for its CPU
              --seconds S          measured seconds per row (default 15), after --warmup S (default 10)
              --nodes N            child JVMs per row (default 3); --threads T worker threads per node (default 8)
              --jobs N             distinct jobs / lock names (default 1000)
              --sync LIST          on, off or on,off (default on,off): off = synchronous_commit=off on the benchmark's
                                   own connections (session setting), every library alike
              --only REGEX         run only the rows whose name contains a match (default: all rows), e.g.
                                   'tenure-valkey 1000 jobs$|db-scheduler'
              --backlog-dbscheduler N (default 250000), --backlog-quartz N (default 40000)
              --history-per-job N  COMPLETED runs per job in Tenure's ledger before each Tenure row (default 100), and
                                   one free row per lock name in ShedLock's table: each library's tables hold what a
                                   running system's hold and are analyzed, as db-scheduler's and Quartz's backlogs are
              --retry-us U         one-job rows: pause before asking again for a fire another node holds (default 1000)
              --node-heap SIZE     -Xmx of each node (default 512m)
              --observations LIST  none, meters, tracing or a list (default none): each Tenure row once per value, back
                                   to back; meters = Tenure.Builder.observationRegistry with Micrometer's
                                   DefaultMeterObservationHandler, tracing = with Micrometer Tracing's OpenTelemetry
                                   bridge (every run sampled, spans dropped at export, trace ids kept on the rows)
              --observation-rounds N  the Tenure rows of --observations N times in turn (default 1); the cost
                                   table then gives each round and the median ratio
              --node-opts "OPTS"   extra JVM options for every node (e.g. a JFR recording: %n and %r in them become
                                   the node's number and the row's name)
            """;

    private String pgHost = "127.0.0.1";
    private int pgPort = 5432;
    private String pgUser = "postgres";
    private String db;
    private int valkeyPort = -1;
    private long valkeyPid = -1;
    private double seconds = 15;
    private double warmup = 10;
    private int nodes = 3;
    private int threads = 8;
    private int jobs = 1000;
    private List<String> syncModes = List.of("on", "off");
    private java.util.regex.Pattern only;
    private int backlogDbScheduler = 250_000;
    private int backlogQuartz = 40_000;
    private int historyPerJob = 100;
    private int retryUs = 1000;
    private String nodeHeap = "512m";
    private List<String> nodeOpts = List.of();
    private List<String> observations = List.of("none");
    private int observationRounds = 1;
    private WaitSampler waits;

    public static void main(String[] args) throws Exception {
        CoordinatedBenchmark b = new CoordinatedBenchmark();
        try {
            b.parse(args);
        } catch (RuntimeException e) {
            System.err.println("error: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
        }
        b.run();
        System.out.flush();
        System.exit(0);
    }

    private void parse(String[] a) {
        for (Map.Entry<String, String> o : Options.parse(a).entrySet()) {
            String k = o.getKey();
            String v = o.getValue();
            switch (k) {
                case "--pg-host" -> pgHost = v;
                case "--pg-port" -> pgPort = Integer.parseInt(v);
                case "--pg-user" -> pgUser = v;
                case "--db" -> db = v;
                case "--valkey-port" -> valkeyPort = Integer.parseInt(v);
                case "--valkey-pid" -> valkeyPid = Long.parseLong(v);
                case "--seconds" -> seconds = Double.parseDouble(v);
                case "--warmup" -> warmup = Double.parseDouble(v);
                case "--nodes" -> nodes = Integer.parseInt(v);
                case "--threads" -> threads = Integer.parseInt(v);
                case "--jobs" -> jobs = Integer.parseInt(v);
                case "--sync" -> syncModes = Arrays.asList(v.split(","));
                case "--only" -> only = java.util.regex.Pattern.compile(v);
                case "--backlog-dbscheduler" -> backlogDbScheduler = Integer.parseInt(v);
                case "--backlog-quartz" -> backlogQuartz = Integer.parseInt(v);
                case "--history-per-job" -> historyPerJob = Integer.parseInt(v);
                case "--retry-us" -> retryUs = Integer.parseInt(v);
                case "--node-heap" -> nodeHeap = v;
                case "--node-opts" -> nodeOpts = Arrays.asList(v.trim().split("\\s+"));
                case "--observations" -> observations = Scenario.checkObservations(Arrays.asList(v.split(",")));
                case "--observation-rounds" -> observationRounds = Integer.parseInt(v);
                default -> throw new IllegalArgumentException("unknown option " + k);
            }
        }
        if (db == null) {
            throw new IllegalArgumentException("--db is required");
        }
        if (valkeyPort <= 0 || valkeyPort == 6379) {
            throw new IllegalArgumentException("--valkey-port of a private server is required (never 6379)");
        }
    }

    private void run() throws Exception {
        Path logs = Files.createTempDirectory("tenure-coordinated-");
        List<Row> rows = new ArrayList<>();
        waits = new WaitSampler(pgHost, pgPort, pgUser, db);
        try (PgAdmin pg = new PgAdmin(pgHost, pgPort, db, pgUser);
                ValkeyAdmin valkey = new ValkeyAdmin("127.0.0.1", valkeyPort)) {
            System.out.println("== Tenure coordinated-run benchmark ==");
            System.out.println("postgres   " + pgHost + ":" + pgPort + " " + pg.serverVersion() + ", database " + db
                    + " (created for this run); fsync=" + pg.setting("fsync") + " synchronous_commit="
                    + pg.setting("synchronous_commit")
                    + " wal_sync_method=" + pg.setting("wal_sync_method") + " commit_delay="
                    + pg.setting("commit_delay"));
            System.out.println(
                    "valkey     127.0.0.1:" + valkeyPort + " " + valkey.serverField("valkey_version") + " (private)");
            System.out.println("jvm        " + System.getProperty("java.vm.name") + " "
                    + System.getProperty("java.runtime.version") + ", availableProcessors="
                    + Runtime.getRuntime().availableProcessors() + ", node heap " + nodeHeap);
            System.out.println("libraries  " + Format.libVersions());
            System.out.println("run        " + nodes + " nodes (JVMs) per row, " + threads
                    + " worker threads per node (one-job rows: 1), "
                    + jobs + " jobs, " + warmup + " s warm-up + " + seconds + " s measured per row, sync " + syncModes
                    + ", node logs in " + logs);
            System.out.println();
            pg.createSchemas();
            int index = 0;
            for (String sync : syncModes) {
                for (Scenario sc : Scenario.all(threads, jobs, observations, observationRounds)) {
                    if (only != null && !only.matcher(sc.name()).find()) {
                        continue;
                    }
                    index++;
                    try {
                        Row r = measure(pg, valkey, sc, sync.equals("off"), "effect_" + index, logs);
                        rows.add(r);
                        progress(r);
                    } catch (Exception e) {
                        System.out.println("# " + sc.name() + " sync=" + sync + " FAILED: " + e);
                    }
                }
            }
        }
        System.out.println();
        for (String sync : syncModes) {
            List<Row> rs =
                    rows.stream().filter(r -> r.syncOff() == sync.equals("off")).toList();
            if (!rs.isEmpty()) {
                Report.print(rs, sync.equals("off"), seconds, nodes);
            }
        }
        if (syncModes.size() > 1) {
            Report.printSyncEffect(rows);
        }
        if (observations.size() > 1) {
            Report.printObservationCost(rows);
        }
    }

    private Row measure(PgAdmin pg, ValkeyAdmin valkey, Scenario sc, boolean syncOff, String table, Path logs)
            throws Exception {
        pg.createEffectTable(table);
        if (sc.tenure()) {
            pg.resetTenure(jobs, historyPerJob);
        } else if (sc.kind().equals("dbscheduler")) {
            pg.dbSchedulerBacklog(backlogDbScheduler);
        } else if (sc.kind().equals("quartz")) {
            pg.quartzBacklog(backlogQuartz, jobs);
        } else if (sc.kind().equals("shedlock")) {
            pg.resetShedLock(jobs);
        }
        String load = Proc.loadAverage();
        pg.awaitNoBackends(10);
        Map<String, Double> lifeStart = pg.counters();
        List<NodeProcess> ps = new ArrayList<>();
        try {
            for (int n = 0; n < nodes; n++) {
                Map<String, String> args = new LinkedHashMap<>();
                args.put("kind", sc.kind());
                args.put("node", Integer.toString(n));
                args.put("nodes", Integer.toString(nodes));
                args.put("url", pg.url());
                args.put("user", pgUser);
                args.put("threads", Integer.toString(sc.threads()));
                args.put("table", table);
                args.put("sync", syncOff ? "off" : "on");
                args.put("valkey", "127.0.0.1:" + valkeyPort);
                args.put("retryUs", Integer.toString(retryUs));
                args.putAll(sc.args());
                String logName =
                        sc.name().replaceAll("[^A-Za-z0-9]+", "-") + (syncOff ? "-syncoff" : "") + "-node" + n + ".log";
                List<String> jvm = new ArrayList<>(List.of("-Xmx" + nodeHeap, "-XX:+UseParallelGC"));
                String rowName = sc.name().replaceAll("[^A-Za-z0-9]+", "-") + (syncOff ? "-syncoff" : "");
                int node = n;
                nodeOpts.forEach(
                        o -> jvm.add(o.replace("%n", Integer.toString(node)).replace("%r", rowName)));
                ps.add(new NodeProcess(jvm, args, logs.resolve(logName)));
            }
            for (NodeProcess p : ps) {
                p.await("READY", 180);
            }
            long warmEnd = System.nanoTime() + (long) (warmup * 1e9);
            long end = warmEnd + (long) (seconds * 1e9);
            for (NodeProcess p : ps) {
                p.go(warmEnd, end);
            }
            Tally.sleepUntil(warmEnd);
            Snapshot a = snapshot(pg, valkey, ps, Set.of());
            java.util.concurrent.FutureTask<Map<String, Long>> backendStates =
                    new java.util.concurrent.FutureTask<>(() -> waits.sample(warmEnd, end, 50));
            new Thread(backendStates, "bench-backend-states").start();
            Tally.sleepUntil(end);
            Snapshot b = snapshot(pg, valkey, ps, a.pgCpu.keySet());
            double window = (b.at - a.at) / 1e9;
            long units = 0;
            long held = 0;
            long done = 0;
            long errors = 0;
            long executions = 0;
            long commits = 0;
            long lifeAttempts = 0;
            long min = Long.MAX_VALUE;
            long max = 0;
            String firstError = null;
            Histogram latency = new Histogram(3_600_000_000_000L, 3);
            for (NodeProcess p : ps) {
                Map<String, String> m = NodeProcess.parse(p.await("RESULT", 120));
                long u = Long.parseLong(m.get("units"));
                units += u;
                min = Math.min(min, u);
                max = Math.max(max, u);
                held += Long.parseLong(m.get("held"));
                done += Long.parseLong(m.get("done"));
                errors += Long.parseLong(m.get("errors"));
                executions += Long.parseLong(m.get("executions"));
                commits += Long.parseLong(m.get("commits"));
                lifeAttempts += Long.parseLong(m.get("attempts"));
                latency.add(Histogram.decodeFromCompressedByteBuffer(
                        ByteBuffer.wrap(Base64.getDecoder().decode(m.get("hist"))), 0));
                if (firstError == null && !m.get("error").equals("-")) {
                    firstError = new String(
                            Base64.getDecoder().decode(m.get("error")), java.nio.charset.StandardCharsets.UTF_8);
                }
            }
            for (NodeProcess p : ps) {
                p.close();
            }
            boolean flushed = pg.awaitNoBackends(20);
            Map<String, Double> lifeEnd = pg.counters();
            Map<String, Double> life = new LinkedHashMap<>();
            lifeEnd.forEach((k, v) -> life.put(k, v - lifeStart.getOrDefault(k, 0.0)));
            if (!flushed) {
                life.clear();
            }
            long[] effects = pg.effects(table);
            long backlog = sc.kind().equals("dbscheduler")
                    ? pg.count("SELECT count(*) FROM scheduled_tasks")
                    : sc.kind().equals("quartz") ? pg.count("SELECT count(*) FROM qrtz_triggers") : -1;
            Map<String, Double> threadDelta = new LinkedHashMap<>();
            threadDelta.putAll(Proc.groupDelta(a.threads, b.threads));
            int ended = Proc.ended(a.pgCpu, b.pgCpu);
            if (ended > 0) {
                System.out.println("#   " + ended + " Postgres backend(s) ended inside the window: their CPU there is"
                        + " not counted");
            }
            Map<String, Double> pgDelta = new LinkedHashMap<>();
            b.pg.forEach((k, v) -> pgDelta.put(k, v - a.pg.getOrDefault(k, 0.0)));
            return new Row(
                    sc,
                    syncOff,
                    window,
                    load,
                    units,
                    min,
                    max,
                    held,
                    done,
                    errors,
                    firstError,
                    latency,
                    executions,
                    commits,
                    pgDelta,
                    ValkeyAdmin.delta(a.valkey, b.valkey),
                    b.machine[0] - a.machine[0],
                    (b.machine[1] - a.machine[1]) / window,
                    b.nodes - a.nodes,
                    threadDelta,
                    Proc.delta(a.pgCpu, b.pgCpu),
                    b.valkeyCpu - a.valkeyCpu,
                    effects[0],
                    effects[1],
                    backlog,
                    backendStates.get(),
                    life,
                    lifeAttempts);
        } finally {
            for (NodeProcess p : ps) {
                p.close();
            }
        }
    }

    /** Everything read at one end of a window. */
    private record Snapshot(
            long at,
            Map<String, Double> pg,
            Map<String, Long> valkey,
            double[] machine,
            double nodes,
            Map<Long, Proc.Task> threads,
            Map<Long, Double> pgCpu,
            double valkeyCpu) {}

    /** {@code backends}: the Postgres processes of the window's start, read again at its end. */
    private Snapshot snapshot(PgAdmin pg, ValkeyAdmin valkey, List<NodeProcess> ps, Set<Long> backends)
            throws Exception {
        long at = System.nanoTime();
        double[] machine = Proc.machine();
        double nodesCpu = 0;
        for (NodeProcess p : ps) {
            nodesCpu += Proc.cpuSeconds(p.pid());
        }
        Map<Long, Proc.Task> threads =
                Proc.tasks(ps.stream().map(NodeProcess::pid).toList());
        Map<Long, Double> pgCpu = pg.backendCpu(backends);
        double valkeyCpu = valkeyPid > 0 ? Proc.cpuSeconds(valkeyPid) : 0;
        Map<String, Double> counters = pg.counters();
        Map<String, Long> commands = valkey.commandCalls();
        return new Snapshot(at, counters, commands, machine, nodesCpu, threads, pgCpu, valkeyCpu);
    }

    private static void progress(Row r) {
        System.out.printf(
                Locale.ROOT,
                "# %-28s sync=%-3s %s units/s  commits/unit %s  errors %d  load %s%n",
                r.scenario().name(),
                r.syncOff() ? "off" : "on",
                Format.num(r.perSecond()),
                Format.num(r.perUnit(r.pg("xact_commit"))),
                r.errors(),
                r.load());
        if (r.firstError() != null) {
            System.out.println("#   first error: " + r.firstError());
        }
        System.out.flush();
    }
}
