package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.boot.app.HandOverApp;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Graceful shutdown hands a job over: two instances of a real Boot application ({@link HandOverApp}), each in its own
 * JVM, on real Postgres and valkey-server, share a coordinated job that fires every second and runs for a while, with
 * the default lease TTL (30 s). The holder gets SIGTERM in the middle of a run. Whether the run finishes within the
 * shutdown phase timeout ({@code spring.lifecycle.timeout-per-shutdown-phase}) or is cut short by it, the holder
 * leaves no lease behind: the other instance runs the next fire within about a second of the holder's exit, not after
 * the TTL. The run's row says how it ended: COMPLETED, or ABANDONED for the shutdown.
 */
class ShutdownHandOverIT {

    private static final String JOB = "hand-over";
    private static final String VALKEY_KEY = "{tenure:" + JOB + "}:lease";
    /** How soon after the holder's exit the other instance must begin a run: the next slot is at most 1 s away. */
    private static final Duration NEXT_RUN_WITHIN = Duration.ofMillis(1500);

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(ShutdownHandOverIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void sigtermMidRun_drainLongEnough_runCompletes_andTheOtherInstanceRunsTheNextFireAtOnce() throws Exception {
        Handed h = sigtermTheHolder("10s", "2s");
        assertThat(h.row).as("the holder's run finished within the drain").startsWith("COMPLETED");
        assertThat(h.businessRows).as("its business row").isEqualTo(1);
    }

    @Test
    void sigtermMidRun_drainTooShort_runIsAbandonedForShutdown_andTheOtherInstanceRunsTheNextFireAtOnce()
            throws Exception {
        Handed h = sigtermTheHolder("1s", "8s");
        assertThat(h.row)
                .as("the holder's run, cut short by the drain timeout")
                .startsWith("ABANDONED ")
                .contains("shutdown");
        assertThat(h.businessRows).as("its business write never committed").isZero();
    }

    /** What one hand-over left: the holder's run row ({@code status error}) and business rows of its slot. */
    record Handed(String row, long businessRows) {}

    /** A {@code BEGIN} line: the slot, the owner, and when the run began. */
    record Begin(JvmProcess by, String slot, String owner, Instant at) {

        String processPrefix() {
            return owner.substring(0, owner.lastIndexOf('-') + 1);
        }
    }

    private Handed sigtermTheHolder(String drain, String work) throws Exception {
        try (JvmProcess a = instance(drain, work);
                JvmProcess b = instance(drain, work)) {
            for (JvmProcess p : List.of(a, b)) {
                p.awaitStdoutLine(l -> l.startsWith("READY "), Timing.scaled(Duration.ofSeconds(120)));
            }
            Begin held = awaitBegin(List.of(a, b), Instant.now(), Timing.scaled(Duration.ofSeconds(20)));
            JvmProcess holder = held.by();
            JvmProcess other = holder == a ? b : a;
            Instant termAt = Instant.now();
            holder.terminate();
            OptionalInt code = holder.waitFor(Timing.scaled(Duration.ofSeconds(60)));
            Instant exitedAt = Instant.now();
            assertThat(code).as("the holder exits after SIGTERM").isPresent();
            Begin next = awaitBegin(List.of(other), termAt, Timing.scaled(Duration.ofSeconds(45)));
            assertThat(Instant.parse(next.slot()))
                    .as("the other instance's next run is of a later fire")
                    .isAfter(Instant.parse(held.slot()));
            Duration wait = Duration.between(exitedAt, next.at());
            String row = runRow(held.slot());
            System.out.println("drain " + drain + ", work " + work + ": SIGTERM at " + termAt + " during " + held.slot()
                    + "; holder exited at " + exitedAt + " ("
                    + Duration.between(termAt, exitedAt).toMillis()
                    + " ms); the other began " + next.slot() + " at " + next.at() + ", " + wait.toMillis()
                    + " ms after the exit; the holder's run row: " + row + "; holder said: "
                    + holder.stdoutLines().stream()
                            .filter(l -> l.contains(held.slot()))
                            .toList() + "; stderr: " + tail(holder.stderrLines()));

            assertThat(wait)
                    .as("from the holder's exit to the other instance's next run")
                    .isLessThanOrEqualTo(Timing.scaled(NEXT_RUN_WITHIN));
            assertThat(String.valueOf(servers.valkey().command("GET", VALKEY_KEY)))
                    .as("no Valkey lease of the exited holder")
                    .doesNotContain(held.processPrefix());
            assertThat(String.valueOf(databaseOwner()))
                    .as("no database lease of the exited holder")
                    .doesNotContain(held.processPrefix());
            long business =
                    servers.queryLong("SELECT count(*) FROM settlement_entry WHERE slot = '" + held.slot() + "'");

            other.terminate();
            assertThat(other.waitFor(Timing.scaled(Duration.ofSeconds(60))))
                    .as("the other instance exits")
                    .isPresent();
            Object left = servers.valkey().command("GET", VALKEY_KEY);
            assertThat(left == null || left.toString().startsWith("d:"))
                    .as("no Valkey lease after both stopped, at most a completed fire's marker (%s)", left)
                    .isTrue();
            assertThat(databaseOwner())
                    .as("no database lease after both stopped")
                    .isNull();
            return new Handed(row, business);
        }
    }

    private static JvmProcess instance(String drain, String work) {
        List<String> args = new ArrayList<>();
        for (String p : servers.both()) {
            args.add("--" + p);
        }
        args.add("--spring.lifecycle.timeout-per-shutdown-phase=" + drain);
        args.add("--settlement.work=" + work);
        return JvmProcess.start(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), HandOverApp.class.getName(), args);
    }

    /** The first run that any of {@code instances} began after {@code after}. */
    private static Begin awaitBegin(List<JvmProcess> instances, Instant after, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (JvmProcess p : instances) {
                for (String line : p.stdoutLines()) {
                    String[] f = line.split(" ");
                    if (f[0].equals("BEGIN") && Instant.parse(f[4]).isAfter(after)) {
                        return new Begin(p, f[1], f[2], Instant.parse(f[4]));
                    }
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no instance began a run after " + after + " within " + timeout + "; they said: "
                + instances.stream()
                        .map(p -> tail(p.stdoutLines()) + " / " + tail(p.stderrLines()))
                        .toList());
    }

    private static String runRow(String slot) throws Exception {
        try (Connection c = servers.db().dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement(
                        "SELECT status, error FROM tenure.job_runs WHERE job_key = ? AND fire_key = ?")) {
            ps.setString(1, JOB);
            ps.setString(2, slot);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) + " " + rs.getString(2) : "no row";
            }
        }
    }

    private static String databaseOwner() throws Exception {
        try (Connection c = servers.db().dataSource().getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT owner FROM tenure.job_execution WHERE job_key = ?")) {
            ps.setString(1, JOB);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    private static List<String> tail(List<String> lines) {
        return lines.subList(Math.max(0, lines.size() - 15), lines.size());
    }
}
