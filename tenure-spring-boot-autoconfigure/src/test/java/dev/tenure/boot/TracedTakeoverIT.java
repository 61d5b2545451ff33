package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.boot.app.TracedNode;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two traced Boot nodes ({@link TracedNode}, separate JVMs, OpenTelemetry bridge) share a job; the node running a fire is
 * frozen (SIGSTOP) until its 3 s lease has expired and the other node caught the fire up, then resumed. The fire's two
 * runs are two traces that share the fire key: the frozen node's {@code tenure.run} ends when it wakes, not EXECUTED,
 * the other node's is EXECUTED, and the fire's {@code job_run} row keeps the trace id of the run that completed it.
 * Real Postgres and Valkey.
 */
class TracedTakeoverIT {

    static BootServers servers;
    final Map<String, JvmProcess> nodes = new LinkedHashMap<>();

    /** A {@code SPAN} line of a node. */
    record Span(String node, String name, String trace, String id, String parent, String fire, String outcome) {
        static Optional<Span> parse(String node, String line) {
            String[] p = line.split(" ");
            return line.startsWith("SPAN ") && p.length == 8
                    ? Optional.of(new Span(node, p[1], p[2], p[3], p[4], p[5], p[6]))
                    : Optional.empty();
        }
    }

    @BeforeAll
    static void start() {
        servers = BootServers.start(TracedTakeoverIT.class);
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void frozenHolder_andTheNodeThatTookItsFireOver_makeTwoTracesOfOneFire() throws Exception {
        try {
            for (String name : List.of("node-a", "node-b")) {
                nodes.put(name, node(name));
            }
            for (JvmProcess p : nodes.values()) {
                p.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(120)));
            }
            String[] begun = awaitBegin();
            String holder = begun[0];
            String fire = begun[1];
            Thread.sleep(300);
            JvmProcess frozen = nodes.get(holder);
            frozen.pause();
            String other = holder.equals("node-a") ? "node-b" : "node-a";
            Span taken;
            try {
                taken = awaitRun(other, fire, Timing.scaled(Duration.ofSeconds(40)));
            } finally {
                frozen.resume();
            }
            Span woken = awaitRun(holder, fire, Timing.scaled(Duration.ofSeconds(20)));
            System.out.println(
                    "fire " + fire + ": " + holder + " frozen, its run " + woken + "; taken over by " + taken);

            assertThat(taken.outcome()).isEqualTo("EXECUTED");
            assertThat(woken.outcome())
                    .as("the frozen holder's run, ended after it woke")
                    .isNotEqualTo("EXECUTED");
            assertThat(taken.trace()).as("two runs of one fire, two traces").isNotEqualTo(woken.trace());
            assertThat(spans(other))
                    .as("the take-over's claim, work and completion in its own trace")
                    .filteredOn(
                            s -> s.trace().equals(taken.trace()) && s.parent().equals(taken.id()))
                    .extracting(Span::name)
                    .containsExactlyInAnyOrder("tenure.run.claim", "tenure.run.work", "tenure.run.complete");
            try (Connection c = servers.db().dataSource().getConnection();
                    PreparedStatement ps = c.prepareStatement("SELECT trace_id, status, node FROM tenure.job_runs "
                            + "WHERE job_key = ? AND fire_key = ?")) {
                ps.setString(1, TracedNode.JOB);
                ps.setString(2, fire);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1))
                            .as("the row keeps the trace of the run that completed it")
                            .isEqualTo(taken.trace());
                    assertThat(rs.getString(2)).isEqualTo("COMPLETED");
                    assertThat(rs.getString(3)).isEqualTo(other);
                }
            }
        } finally {
            nodes.values().forEach(JvmProcess::close);
        }
    }

    private JvmProcess node(String name) {
        List<String> args = new ArrayList<>();
        servers.both().forEach(p -> args.add("--" + p));
        args.addAll(List.of(
                "--tenure.node-name=" + name,
                "--tenure.lease.ttl=3s",
                "--tenure.missed-fires.grace=1s",
                "--tenure.missed-fires.sweep-interval=500ms",
                "--management.tracing.sampling.probability=1.0",
                "--management.otlp.metrics.export.enabled=false",
                "--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off",
                "--logging.level.root=warn",
                "--spring.task.scheduling.pool.size=2",
                "--spring.autoconfigure.exclude=org.springframework.boot.quartz.autoconfigure.QuartzAutoConfiguration,"
                        + "org.springframework.boot.batch.autoconfigure.BatchAutoConfiguration,"
                        + "org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration"));
        return JvmProcess.start(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), TracedNode.class.getName(), args);
    }

    /** The node and fire of the first BEGIN line after both nodes are ready. */
    private String[] awaitBegin() throws InterruptedException {
        int[] seen =
                nodes.values().stream().mapToInt(p -> p.stdoutLines().size()).toArray();
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(20)).toNanos();
        while (System.nanoTime() < deadline) {
            int i = 0;
            for (Map.Entry<String, JvmProcess> e : nodes.entrySet()) {
                List<String> lines = e.getValue().stdoutLines();
                for (String line : lines.subList(seen[i++], lines.size())) {
                    if (line.startsWith("BEGIN ")) {
                        return new String[] {e.getKey(), line.substring(6).trim()};
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no node began a run");
    }

    private List<Span> spans(String node) {
        return nodes.get(node).stdoutLines().stream()
                .map(l -> Span.parse(node, l))
                .flatMap(Optional::stream)
                .toList();
    }

    /** The {@code tenure.run} span of {@code fire} on {@code node} that ran it (not a skip). */
    private Span awaitRun(String node, String fire, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<Span> run = spans(node).stream()
                    .filter(s -> s.name().equals("tenure.run")
                            && s.fire().equals(fire)
                            && !s.outcome().startsWith("SKIPPED"))
                    .findFirst();
            if (run.isPresent()) {
                return run.get();
            }
            Thread.sleep(50);
        }
        throw new AssertionError(node + " ended no run of fire " + fire + "; its spans: " + spans(node));
    }
}
