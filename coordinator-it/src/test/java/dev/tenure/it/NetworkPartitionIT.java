package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PacketFilter;
import dev.tenure.testkit.TcpRelay;
import dev.tenure.testkit.Timing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, item 9: a running holder cut off from Valkey only, from Postgres only, and from both, by a real partition.
 * Each of three node JVMs ({@link PartitionWorker}, {@code VALKEY_WITH_DATABASE_FALLBACK}, TTL 2 s) reaches Valkey and
 * Postgres through relays of its own ({@link TcpRelay}); the test cuts the holder's relays with {@link PacketFilter},
 * which drops their packets in the kernel (no reset, no ICMP). The held fire's work lasts until the test lets it end,
 * so the holder's write happens when the test says. Every fire writes one row into a table without a unique key and
 * completes in the same transaction: each fire must have exactly one row and one completed run.
 */
class NetworkPartitionIT {

    private static final long TTL_MS = 2000;
    private static final long RENEW_MS = TTL_MS / 3;
    private static final int FIRES = 8;
    private static final int HELD_FIRE = 2;
    private static final long INTERVAL_MS = 300;
    private static final long WORK_MS = 100;
    /** How long a takeover (or the next run) may take, on top of TTL + renewal, on an idle machine. */
    private static final long SLACK_MS = 1500;

    private static CoordinatorServers servers;
    private static PacketFilter filter;

    @BeforeAll
    static void start() throws Exception {
        filter = PacketFilter.create();
        servers = new CoordinatorServers(NetworkPartitionIT.class);
        servers.execute("CREATE TABLE partition_effects (job text NOT NULL, fire_key text NOT NULL, "
                + "epoch bigint NOT NULL, node text NOT NULL)");
    }

    @AfterAll
    static void stop() {
        if (filter != null) {
            filter.close();
        }
        if (servers != null) {
            servers.close();
        }
    }

    /**
     * Valkey is only the filter: the cut holder keeps its database lease, so its run goes on and its write commits,
     * and no other node starts a run of the job meanwhile, although the holder's Valkey lease expired long ago.
     */
    @Test
    void holderCutFromValkeyOnly_keepsTheJobByItsDatabaseLease_writesCommit_nothingRunsTwice() throws Exception {
        try (Cluster cluster = new Cluster("cut-valkey")) {
            Node holder = cluster.awaitHolderOfHeldFire();
            long cutAt = cluster.cut(holder.valkey.port());
            Thread.sleep(2 * TTL_MS + RENEW_MS); // the holder's Valkey lease expires; its database lease is renewed
            assertThat(cluster.startsAfter(holder.start.wall, holder))
                    .as("runs started by other nodes while the holder, cut from Valkey only, held the job")
                    .isEmpty();
            cluster.letTheHeldFireEnd();
            Line outcome = holder.awaitOutcome(cluster.heldFire());
            assertThat(outcome.status())
                    .as("the cut holder's run (its database lease is the authority)")
                    .isEqualTo("EXECUTED");
            assertThat(outcome.epoch()).isEqualTo(holder.start.epoch());
            long bound = Timing.scaledMillis(TTL_MS + RENEW_MS + SLACK_MS);
            Line next = cluster.awaitStartAfter(outcome.wall, null, bound, "any node after the holder's release");
            long gap = next.wall - outcome.wall;
            System.out.printf(
                    "cut from Valkey %d ms into the held run; it ran on for %d ms under epoch %d and "
                            + "committed; the next run (%s on %s) started %d ms after it ended%n",
                    cutAt - holder.start.wall, outcome.wall - cutAt, holder.start.epoch(), next.fire(), next.node, gap);
            assertThat(gap).as("ms from the holder's release to the next run").isLessThanOrEqualTo(bound);
            cluster.healAndFinish(holder);
        }
    }

    @Test
    void holderCutFromPostgresOnly_fencedOut_nextNodeWithinTtlPlusRenewal_nothingRunsTwice() throws Exception {
        cutHolder("cut-postgres", true, false);
    }

    @Test
    void holderCutFromValkeyAndPostgres_fencedOut_nextNodeWithinTtlPlusRenewal_nothingRunsTwice() throws Exception {
        cutHolder("cut-both", true, true);
    }

    /**
     * The holder loses its database lease: another node claims the job within about TTL + one renewal of the cut and
     * runs the held fire under a newer epoch; when the link is back, the holder's write reaches the database and is
     * refused by the epoch check (LEASE_LOST), and the holder runs jobs again.
     */
    private static void cutHolder(String job, boolean postgres, boolean valkey) throws Exception {
        try (Cluster cluster = new Cluster(job)) {
            Node holder = cluster.awaitHolderOfHeldFire();
            List<Integer> ports = new ArrayList<>();
            if (postgres) {
                ports.add(holder.postgres.port());
            }
            if (valkey) {
                ports.add(holder.valkey.port());
            }
            long cutAt = cluster.cut(ports.stream().mapToInt(Integer::intValue).toArray());
            long bound = Timing.scaledMillis(TTL_MS + RENEW_MS + SLACK_MS);
            Line next = cluster.awaitStartAfter(
                    cutAt, holder, bound, "another node after the cut (TTL + renewal + " + "slack, scaled)");
            long takeover = next.wall - cutAt;
            System.out.printf(
                    "%s: holder %s cut %d ms into the held run (epoch %d); %s started %s %d ms after the cut "
                            + "(TTL %d + renewal %d), epoch %d%n",
                    job,
                    holder.name,
                    cutAt - holder.start.wall,
                    holder.start.epoch(),
                    next.node,
                    next.fire(),
                    takeover,
                    TTL_MS,
                    RENEW_MS,
                    next.epoch());
            assertThat(next.fire()).as("the fire the other node ran first").isEqualTo(cluster.heldFire());
            assertThat(next.epoch()).as("the other node's epoch").isGreaterThan(holder.start.epoch());
            assertThat(takeover).as("ms from the cut to the next node's run").isLessThanOrEqualTo(bound);
            cluster.heal();
            cluster.letTheHeldFireEnd();
            Line outcome = holder.awaitOutcome(cluster.heldFire());
            System.out.printf("%s: the cut holder's write after the heal: %s%n", job, outcome.text);
            assertThat(outcome.status())
                    .as("the cut holder's outcome for the held fire")
                    .isEqualTo("LEASE_LOST");
            assertThat(outcome.text).as("refused by the epoch check").endsWith(" StaleOwnerException");
            assertThat(servers.count("SELECT count(*) FROM partition_effects WHERE job = '" + job + "' AND fire_key = '"
                            + cluster.heldFire() + "' AND epoch = " + holder.start.epoch()))
                    .as("rows of the cut holder's run")
                    .isZero();
            cluster.healAndFinish(holder);
        }
    }

    /** One line of a node's output, split on spaces. */
    private record Line(String node, String text, long wall) {

        String[] parts() {
            return text.split(" ");
        }

        String fire() {
            return parts()[1];
        }

        String status() {
            return parts()[2];
        }

        long epoch() {
            return Long.parseLong(parts()[text.startsWith("START ") ? 2 : 3]);
        }
    }

    private static final class Node implements AutoCloseable {
        final String name;
        final TcpRelay valkey;
        final TcpRelay postgres;
        JvmProcess process;
        Line start;

        Node(String name) {
            this.name = name;
            valkey = TcpRelay.to(servers.valkey.host(), servers.valkey.port());
            String url = servers.db.jdbcUrl();
            String hostPort = url.replaceFirst("^jdbc:postgresql://([^/]*)/.*$", "$1");
            postgres = TcpRelay.to(
                    hostPort.substring(0, hostPort.lastIndexOf(':')),
                    Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1)));
        }

        List<Line> lines(String prefix) {
            List<Line> out = new ArrayList<>();
            for (String l : process.stdoutLines()) {
                if (l.startsWith(prefix)) {
                    String[] p = l.split(" ");
                    long wall = Long.parseLong(p[l.startsWith("START ") ? 3 : 4]);
                    out.add(new Line(name, l, wall));
                }
            }
            return out;
        }

        Line awaitOutcome(String fire) {
            String text = process.awaitStdoutLine(
                    l -> l.startsWith("OUTCOME " + fire + " "), Timing.scaled(Duration.ofSeconds(20)));
            return new Line(name, text, Long.parseLong(text.split(" ")[4]));
        }

        @Override
        public void close() {
            if (process != null) {
                process.close();
            }
            valkey.close();
            postgres.close();
        }
    }

    /** Three nodes running one job's fires, and the cut of the moment. */
    private static final class Cluster implements AutoCloseable {
        final String job;
        final Path hold;
        final List<Node> nodes = new ArrayList<>();
        long droppedBefore;

        Cluster(String job) throws Exception {
            this.job = job;
            hold = Files.createTempFile("tenure-hold-", "");
            long startAt = System.currentTimeMillis() + Timing.scaledMillis(3000);
            for (int i = 1; i <= 3; i++) {
                Node n = new Node("n" + i);
                nodes.add(n);
                n.process = JvmProcess.start(
                        PartitionWorker.class,
                        n.valkey.address(),
                        n.postgres.jdbcUrl(servers.db.jdbcUrl()),
                        servers.db.username(),
                        servers.passwordArg(),
                        job,
                        Integer.toString(FIRES),
                        Long.toString(INTERVAL_MS),
                        Long.toString(startAt),
                        Long.toString(TTL_MS),
                        Long.toString(WORK_MS),
                        Integer.toString(HELD_FIRE),
                        hold.toString(),
                        n.name);
            }
        }

        String heldFire() {
            return "fire-" + HELD_FIRE;
        }

        /** Waits for the node that starts the held fire first, once every node has started. */
        Node awaitHolderOfHeldFire() throws InterruptedException {
            for (Node n : nodes) {
                // a loaded machine takes a while to start three JVMs: the 30 s below count from then
                n.process.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(60)));
            }
            long deadline = System.currentTimeMillis() + Timing.scaledMillis(30_000);
            while (System.currentTimeMillis() < deadline) {
                for (Node n : nodes) {
                    Optional<Line> s =
                            n.lines("START " + heldFire() + " ").stream().findFirst();
                    if (s.isPresent()) {
                        n.start = s.get();
                        return n;
                    }
                }
                Thread.sleep(10);
            }
            throw new AssertionError("no node started " + heldFire() + " within " + Timing.scaledMillis(30_000)
                    + " ms; output: " + output());
        }

        /** Cuts these relay ports; the wall time of the cut. */
        long cut(int... ports) {
            droppedBefore = filter.droppedPackets();
            filter.cut(ports);
            return System.currentTimeMillis();
        }

        void heal() {
            int[] ports = filter.cutPorts().stream().mapToInt(Integer::intValue).toArray();
            assertThat(filter.droppedPackets() - droppedBefore)
                    .as("packets dropped on the cut path")
                    .isPositive();
            filter.heal(ports);
        }

        void letTheHeldFireEnd() throws Exception {
            Files.deleteIfExists(hold);
        }

        /** START lines of nodes other than {@code except} after {@code wall}. */
        List<Line> startsAfter(long wall, Node except) {
            List<Line> out = new ArrayList<>();
            for (Node n : nodes) {
                if (n != except) {
                    n.lines("START ").stream().filter(l -> l.wall > wall).forEach(out::add);
                }
            }
            return out;
        }

        /**
         * The first START after {@code wall} on a node other than {@code except} (any node if null), waiting up to
         * {@code withinMillis} after {@code wall}; fails naming {@code what} if none comes.
         */
        Line awaitStartAfter(long wall, Node except, long withinMillis, String what) throws InterruptedException {
            while (true) {
                Optional<Line> first = startsAfter(wall, except).stream().min((x, y) -> Long.compare(x.wall, y.wall));
                if (first.isPresent()) {
                    return first.get();
                }
                if (System.currentTimeMillis() > wall + withinMillis) {
                    throw new AssertionError(
                            "no run of " + what + " started within " + withinMillis + " ms; output: " + output());
                }
                Thread.sleep(10);
            }
        }

        /**
         * Heals the link (if still cut), lets every node finish its fires, and checks: the holder ran a job through
         * Valkey and Postgres again; every fire settled on every node; each fire's row exactly once, with its
         * completed run.
         */
        void healAndFinish(Node holder) throws Exception {
            if (!filter.cutPorts().isEmpty()) {
                heal();
            }
            long healedAt = System.currentTimeMillis();
            letTheHeldFireEnd();
            for (Node n : nodes) {
                n.process.awaitStdoutLine("DONE"::equals, Timing.scaled(Duration.ofSeconds(90)));
            }
            String recovered = holder.process.stdoutLines().stream()
                    .filter(l -> l.startsWith("RECOVERED"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("the holder did not run a job through Valkey and Postgres "
                            + "after the heal; output: " + holder.process.stdoutLines()));
            System.out.printf(
                    "%s: the holder ran a job through both links again %d ms after the heal%n",
                    job, Long.parseLong(recovered.split(" ")[1]) - healedAt);
            for (Node n : nodes) {
                List<String> out = n.process.stdoutLines();
                assertThat(out).as("node %s gave up no fire", n.name).noneMatch(l -> l.startsWith("GAVE_UP"));
                for (int k = 0; k < FIRES; k++) {
                    String fire = "fire-" + k;
                    assertThat(out)
                            .as("node %s settled %s", n.name, fire)
                            .anyMatch(l -> l.startsWith("OUTCOME " + fire + " ")
                                    && (l.contains(" EXECUTED ") || l.contains(" SKIPPED_ALREADY_DONE ")));
                }
            }
            String where = " FROM partition_effects WHERE job = '" + job + "'";
            assertThat(servers.one(
                            "SELECT coalesce(string_agg(fire_key || ' x' || n, ', '), '') FROM (SELECT fire_key, "
                                    + "count(*) AS n" + where + " GROUP BY fire_key HAVING count(*) > 1) d"))
                    .as("fires run twice")
                    .isEmpty();
            assertThat(servers.count("SELECT count(*) FROM generate_series(0, " + (FIRES - 1) + ") k WHERE NOT EXISTS "
                            + "(SELECT 1" + where + " AND fire_key = 'fire-' || k)"))
                    .as("fires never run")
                    .isZero();
            assertThat(servers.count(
                            "SELECT count(*) FROM tenure.job_runs r JOIN partition_effects b ON b.job = r.job_key "
                                    + "AND b.fire_key = r.fire_key AND b.epoch = r.epoch WHERE r.job_key = '" + job
                                    + "' AND r.status = 'COMPLETED'"))
                    .as("fires completed with their row, under one epoch")
                    .isEqualTo(FIRES);
        }

        String output() {
            StringBuilder b = new StringBuilder();
            for (Node n : nodes) {
                b.append("\n")
                        .append(n.name)
                        .append(": ")
                        .append(n.process.stdoutLines())
                        .append("\n  stderr: ")
                        .append(n.process.stderrLines());
            }
            return b.toString();
        }

        @Override
        public void close() throws Exception {
            filter.heal(filter.cutPorts().stream().mapToInt(Integer::intValue).toArray());
            nodes.forEach(Node::close);
            Files.deleteIfExists(hold);
        }
    }
}
