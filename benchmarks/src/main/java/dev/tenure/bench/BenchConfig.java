package dev.tenure.bench;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/** Command-line options. */
public final class BenchConfig {

    String host = "127.0.0.1";
    int port = -1;
    Duration pairsDuration = Duration.ofSeconds(5);
    Duration handoffDuration = Duration.ofSeconds(10);
    Duration warmup = Duration.ofSeconds(2);
    List<Integer> threads = List.of(1, 16, 64);
    List<String> drivers = Drivers.DEFAULT;

    String scenario = "all";
    Duration ttl = Duration.ofSeconds(30);
    int handoffThreads = 16;
    /** The multi-process hand-off: this many child JVMs share the handoff threads (0 = single process only). */
    int handoffProcesses = 4;

    Duration hold = Duration.ofMillis(2);
    Duration wait = Duration.ofSeconds(5);
    Duration poll = Duration.ofMillis(5);
    Duration requestTimeout = Duration.ofMillis(1000);
    boolean baseline = true;
    String valkeyBenchmark = "valkey-benchmark";
    int baselineRequests = 200_000;
    int manyLeases = 10_000;
    Duration manyDuration = Duration.ofSeconds(60);
    Duration manyTtl = Duration.ofSeconds(30);
    List<String> manyStores = List.of("valkey", "db");
    String pgHost = "127.0.0.1";
    int pgPort = 5432;
    String pgUser = "postgres";
    /** Every key of this run starts with this, so runs never collide. */
    String runId = "tb:" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMddHHmmss")) + "-"
            + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    public Duration poll() {
        return poll;
    }

    /** Key prefix for one driver in this run, e.g. {@code tb:20260101120000-1a2b:glide}. */
    public String keyPrefix(String driver) {
        return runId + ":" + driver;
    }

    static final String USAGE = """
            usage: LockBenchmark --port PORT [options]
              --host H               Valkey host (default 127.0.0.1)
              --port P               Valkey port (required)
              --seconds S            measured seconds per run, both scenarios (default: pairs 5, handoff 10)
              --pairs-seconds S      measured seconds per UncontendedPairs run
              --handoff-seconds S    measured seconds per ContendedHandoff run
              --warmup S             warm-up seconds before each measured run (default 2)
              --threads 1,16,64      thread counts for UncontendedPairs
              --drivers a,b,...|all  drivers (default %s; known: %s)
              --scenario pairs|handoff|all|many   (default all = pairs and handoff; many runs alone)
              --many-leases N        scenario many: leases held by this JVM (default 10000)
              --many-seconds S       scenario many: how long they are held and renewed (default 60)
              --many-ttl-ms MS       scenario many: their TTL (default 30000; renewed every third)
              --many-stores a,b      scenario many: valkey, db (default both; db = the database lease store on a fresh
                                     database of the Postgres at --pg-host:--pg-port, user --pg-user, trust auth)
              --pg-host H / --pg-port P / --pg-user U   (default 127.0.0.1 / 5432 / postgres)
              --handoff-threads N    threads contending for one key (default 16)
              --handoff-processes P  also run the hand-off with the threads spread over P child JVMs (default 4;
                                     0 = only the single-process row)
              --run-id ID            key prefix of the run (default: time + random; children get the parent's)
              --hold-ms MS           time each holder keeps the lock in the handoff scenario (default 2)
              --wait-ms MS           bounded wait of lock() in the handoff scenario (default 5000)
              --poll-ms MS           retry interval for drivers that poll (shedlock, glide) (default 5)
              --ttl-ms MS            lock TTL / lease time (default 30000)
              --timeout-ms MS        client request timeout (default 1000)
              --no-baseline          skip valkey-benchmark
              --valkey-benchmark P   path of valkey-benchmark (default: on PATH)
              --baseline-requests N  -n for valkey-benchmark (default 200000)
            """;

    static BenchConfig parse(String[] args) {
        BenchConfig c = new BenchConfig();
        Double seconds = null;
        Double pairsSeconds = null;
        Double handoffSeconds = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--help") || a.equals("-h")) {
                throw new IllegalArgumentException("");
            }
            if (a.equals("--no-baseline")) {
                c.baseline = false;
                continue;
            }
            String v;
            int eq = a.indexOf('=');
            if (eq > 0) {
                v = a.substring(eq + 1);
                a = a.substring(0, eq);
            } else {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("missing value for " + a);
                }
                v = args[++i];
            }
            switch (a) {
                case "--host" -> c.host = v;
                case "--port" -> c.port = Integer.parseInt(v);
                case "--seconds" -> seconds = Double.parseDouble(v);
                case "--pairs-seconds" -> pairsSeconds = Double.parseDouble(v);
                case "--handoff-seconds" -> handoffSeconds = Double.parseDouble(v);
                case "--warmup" -> c.warmup = secs(Double.parseDouble(v));
                case "--threads" ->
                    c.threads = Arrays.stream(v.split(","))
                            .map(String::trim)
                            .filter(s -> !s.isEmpty())
                            .map(Integer::parseInt)
                            .toList();
                case "--drivers" ->
                    c.drivers = v.equals("all")
                            ? List.copyOf(Drivers.known())
                            : Arrays.stream(v.split(","))
                                    .map(String::trim)
                                    .filter(s -> !s.isEmpty())
                                    .toList();
                case "--scenario" -> c.scenario = v;
                case "--handoff-threads" -> c.handoffThreads = Integer.parseInt(v);
                case "--handoff-processes" -> c.handoffProcesses = Integer.parseInt(v);
                case "--run-id" -> c.runId = v;
                case "--hold-ms" -> c.hold = Duration.ofNanos((long) (Double.parseDouble(v) * 1_000_000));
                case "--wait-ms" -> c.wait = Duration.ofMillis(Long.parseLong(v));
                case "--poll-ms" -> c.poll = Duration.ofNanos((long) (Double.parseDouble(v) * 1_000_000));
                case "--ttl-ms" -> c.ttl = Duration.ofMillis(Long.parseLong(v));
                case "--timeout-ms" -> c.requestTimeout = Duration.ofMillis(Long.parseLong(v));
                case "--valkey-benchmark" -> c.valkeyBenchmark = v;
                case "--baseline-requests" -> c.baselineRequests = Integer.parseInt(v);
                case "--many-leases" -> c.manyLeases = Integer.parseInt(v);
                case "--many-seconds" -> c.manyDuration = secs(Double.parseDouble(v));
                case "--many-ttl-ms" -> c.manyTtl = Duration.ofMillis(Long.parseLong(v));
                case "--many-stores" ->
                    c.manyStores = Arrays.stream(v.split(","))
                            .map(String::trim)
                            .filter(x -> !x.isEmpty())
                            .toList();
                case "--pg-host" -> c.pgHost = v;
                case "--pg-port" -> c.pgPort = Integer.parseInt(v);
                case "--pg-user" -> c.pgUser = v;
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (seconds != null) {
            c.pairsDuration = secs(seconds);
            c.handoffDuration = secs(seconds);
        }
        if (pairsSeconds != null) {
            c.pairsDuration = secs(pairsSeconds);
        }
        if (handoffSeconds != null) {
            c.handoffDuration = secs(handoffSeconds);
        }
        if (c.port <= 0) {
            throw new IllegalArgumentException("--port is required");
        }
        if (c.port == 6379) {
            // The shared Redis on this machine lives there; never benchmark against it by accident.
            throw new IllegalArgumentException("refusing to run against port 6379 (shared server); start your own");
        }
        if (!List.of("pairs", "handoff", "all", "many").contains(c.scenario)) {
            throw new IllegalArgumentException("--scenario must be pairs, handoff, all or many");
        }
        List<String> unknown = new ArrayList<>(c.drivers);
        unknown.removeIf(d -> !Drivers.known().contains(d));
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown driver(s) " + unknown + "; known: " + Drivers.known()
                    + (unknown.contains("tenure") ? " (tenure is not wired yet: register it in Drivers.all)" : ""));
        }
        return c;
    }

    private static Duration secs(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }
}
