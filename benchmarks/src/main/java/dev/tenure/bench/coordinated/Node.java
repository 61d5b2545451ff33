package dev.tenure.bench.coordinated;

import com.zaxxer.hikari.HikariDataSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Base64;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * One node of a coordinated-run scenario: a child JVM started by {@link CoordinatedBenchmark}. It sets its workload
 * up, prints {@code READY}, reads {@code GO <warm-up end> <end>} (System.nanoTime values: CLOCK_MONOTONIC, the same
 * clock in every process of this machine), runs the workload until the end, and prints one {@code RESULT} line.
 *
 * <p>Arguments are {@code key=value}: kind (tenure, dbscheduler, quartz, shedlock, scheduled), node, nodes, url, user, threads,
 * jobs, table, sync (on/off), and per kind: mode (VALKEY/DATABASE), valkey (host:port), fires (own/shared), retryUs.
 */
public final class Node {

    /** What runs inside a node. */
    interface Workload extends AutoCloseable {
        /** Untimed set-up (connections, class loading, one priming unit where the library allows it). */
        void prepare() throws Exception;

        /** Runs until {@code tally.end()} and stops; counts into {@code tally}. */
        void run(Tally tally) throws Exception;

        /** Extra {@code key=value} pairs for the RESULT line (no spaces in values), read after {@link #run}. */
        default String result() {
            return "";
        }

        @Override
        void close() throws Exception;
    }

    final Map<String, String> args;
    final int node;
    final int nodes;
    final int threads;
    final int jobs;
    final String table;
    private final long stride;
    final JdbcCounts jdbc = new JdbcCounts();
    HikariDataSource pool;
    /** The pool, counting statements and commits into {@link #jdbc} (and later into the tally). */
    DataSource ds;
    /** The words of the GO line ({@code GO <warm-up end> <end>} and what a workload reads beyond them). */
    String[] go;
    /** The lines the benchmark sends after GO (a workload that waits for a STOP reads them). */
    BufferedReader stdin;

    private Node(Map<String, String> args) {
        this.args = args;
        this.node = Integer.parseInt(args.get("node"));
        this.nodes = Integer.parseInt(args.get("nodes"));
        this.threads = Integer.parseInt(args.get("threads"));
        this.jobs = Integer.parseInt(args.getOrDefault("jobs", "1000"));
        this.table = args.get("table");
        this.stride = stride(node, jobs);
    }

    String arg(String key) {
        String v = args.get(key);
        if (v == null) {
            throw new IllegalArgumentException("missing " + key + "=");
        }
        return v;
    }

    /**
     * The job index of the {@code i}-th step of this node's walk over the jobs: node k starts at k*jobs/nodes and steps
     * by the k-th stride coprime with {@code jobs} (1, 7, 11, 13, ...), so every round still visits each job once, but
     * nodes do not fall into step with each other (nodes walking in the same order would meet and collide on every job
     * once the faster one caught up with the slower). Meetings on a job are then as rare as with random choices.
     */
    long jobIndex(long i) {
        return Math.floorMod((long) node * jobs / nodes + i * stride, (long) jobs);
    }

    private static long stride(int node, int jobs) {
        int found = 0;
        for (long s = 1; ; s++) {
            if (java.math.BigInteger.valueOf(s)
                                    .gcd(java.math.BigInteger.valueOf(jobs))
                                    .intValue()
                            == 1
                    && (s == 1 || s > 6)) {
                if (found++ == node) {
                    return s;
                }
            }
        }
    }

    /** The trivial business write every unit of every library makes: one row. */
    String insertSql() {
        return "INSERT INTO " + table + " (job, fire, node) VALUES (?, ?, ?)";
    }

    /** The business row of one fire run by this node, on the run's connection {@code c}. */
    Void insert(Connection c, String job, String fire) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insertSql())) {
            ps.setString(1, job);
            ps.setString(2, fire);
            ps.setInt(3, node);
            ps.executeUpdate();
        }
        return null;
    }

    public static void main(String[] argv) throws Exception {
        Map<String, String> args = new HashMap<>();
        for (String a : argv) {
            int eq = a.indexOf('=');
            args.put(a.substring(0, eq), a.substring(eq + 1));
        }
        Node n = new Node(args);
        int rc = 0;
        try {
            rc = n.runNode();
        } catch (Throwable t) {
            t.printStackTrace();
            System.out.println("FAILED " + oneLine(t.toString()));
            rc = 1;
        }
        System.out.flush();
        System.exit(rc);
    }

    private int runNode() throws Exception {
        boolean syncOff = "off".equals(args.get("sync"));
        // the node's pool: its threads plus three (Quartz asks for threadCount + 3; db-scheduler polls and cleans up on
        // threads of its own; Tenure's release notifications may hold one)
        pool = Pools.create(arg("url"), arg("user"), threads + 3, syncOff, "bench-" + arg("kind") + "-" + node);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        stdin = in;
        Tally tally;
        String extra;
        try (Workload w = workload()) {
            ds = jdbc.wrap(pool);
            w.prepare();
            System.out.println("READY");
            System.out.flush();
            String go = in.readLine();
            if (go == null || !go.startsWith("GO ")) {
                throw new IllegalStateException("expected GO, got " + go);
            }
            String[] p = go.split(" ");
            this.go = p;
            tally = new Tally(Long.parseLong(p[1]), Long.parseLong(p[2]), jdbc);
            tally.sampleAt();
            w.run(tally);
            extra = w.result();
        }
        long[] d = tally.window();
        Histogram h = tally.latency();
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int len = h.encodeIntoCompressedByteBuffer(buf);
        byte[] bytes = new byte[len];
        buf.flip();
        buf.get(bytes);
        String err = tally.firstError();
        System.out.println(String.format(
                Locale.ROOT,
                "RESULT units=%d held=%d done=%d errors=%d executions=%d commits=%d rollbacks=%d attempts=%d hist=%s error=%s%s",
                d[0],
                d[1],
                d[2],
                d[3],
                d[4],
                d[5],
                d[6],
                tally.attemptsEver(),
                Base64.getEncoder().encodeToString(bytes),
                err == null ? "-" : Base64.getEncoder().encodeToString(err.getBytes(StandardCharsets.UTF_8)),
                extra.isEmpty() ? "" : " " + extra));
        System.out.flush();
        pool.close();
        return 0;
    }

    private Workload workload() {
        return switch (arg("kind")) {
            case "tenure" -> new TenureWorkload(this);
            case "dbscheduler" -> new DbSchedulerWorkload(this);
            case "quartz" -> new QuartzWorkload(this);
            case "shedlock" -> new ShedLockWorkload(this);
            case "scheduled" -> new ScheduledWorkload(this);
            default -> throw new IllegalArgumentException("unknown kind " + arg("kind"));
        };
    }

    static String oneLine(String s) {
        return s.replace('\n', ' ').replace('\r', ' ');
    }
}
