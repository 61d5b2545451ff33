package dev.tenure.it;

import dev.tenure.JobCoordinator;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * One node of {@link ExactlyOnceIT}:
 * {@code <mode> <valkey|-> <jdbc url> <user> <password|-> <job> <fires> <interval ms> <start ms> <ttl ms> <freeze ms> <node>
 * [tx]}.
 * Fire k is due at start + k·interval on every node. Each node works through the fires in order and retries a fire
 * until it is done (executed here or elsewhere), as a scheduler that recovers missed fires would. The work inserts one
 * row into {@code business_effects} (no unique key on the fire) and completes the fire in the same transaction. Right
 * after that commit, on its 2nd, 6th, 10th... execution, the node freezes itself with SIGSTOP for {@code freeze ms}
 * (longer than the TTL), before its outcome is recorded. Prints {@code FROZE <fire>}, {@code OUTCOME <fire> <status>
 * <epoch> <completedInTransaction>}, then {@code DONE}. With {@code tx} the run is one transaction
 * ({@link JobCoordinator#runInTransaction}): the node freezes inside it, after the insert and before the completion
 * and release, so the epoch check at its end must roll the insert back.
 */
public final class ExactlyOnceWorker {

    public static void main(String[] a) throws Exception {
        DataSource ds = TenureDataSources.hikari(a[2], a[3], a[4].equals("-") ? "" : a[4]);
        long ttl = Long.parseLong(a[9]);
        Tenure tenure =
                Workers.tenure(a[0], a[1], ds, Duration.ofMillis(ttl), Duration.ofMillis(500), Duration.ofSeconds(5));
        JobCoordinator c = tenure.coordinator();
        String job = a[5];
        int fires = Integer.parseInt(a[6]);
        long interval = Long.parseLong(a[7]);
        long start = Long.parseLong(a[8]);
        long freeze = Long.parseLong(a[10]);
        String node = a[11];
        boolean oneTransaction = a.length > 12 && a[12].equals("tx");
        int[] executions = {0};
        System.out.println("READY");
        for (int k = 0; k < fires; k++) {
            long sleep = start + k * interval - System.currentTimeMillis();
            if (sleep > 0) {
                Thread.sleep(sleep);
            }
            String fire = "fire-" + k;
            long giveUp = System.currentTimeMillis() + Timing.scaledMillis(30_000);
            RunOutcome<Integer> o = null;
            while (System.currentTimeMillis() < giveUp && (o == null || !settled(o))) {
                try {
                    if (oneTransaction) {
                        boolean[] froze = {false};
                        o = c.runInTransaction(
                                job, fire, new RunPolicy(Duration.ofMillis(ttl), true), ds, (ctx, conn) -> {
                                    int n = insert(conn, job, fire, ctx.epoch(), node);
                                    froze[0] = freezeOnSchedule(executions, fire, freeze);
                                    return n;
                                });
                        if (froze[0]) {
                            System.out.println(
                                    "FROZEN_RUN " + fire + " " + o.status() + " " + o.completedInTransaction() + " "
                                            + (o.error() == null
                                                    ? "-"
                                                    : o.error().getClass().getSimpleName()));
                        }
                        continue;
                    }
                    o = c.run(job, fire, new RunPolicy(Duration.ofMillis(ttl), true), ctx -> {
                        int n = ctx.completeInTransaction(ds, conn -> insert(conn, job, fire, ctx.epoch(), node));
                        freezeOnSchedule(executions, fire, freeze);
                        return n;
                    });
                } catch (RuntimeException e) {
                    System.out.println("ERROR " + fire + " " + e);
                    Thread.sleep(100);
                }
            }
            System.out.println("OUTCOME " + fire + " "
                    + (o == null ? "NONE" : o.status() + " " + o.epoch() + " " + o.completedInTransaction()));
        }
        System.out.println("DONE");
        tenure.close();
        System.exit(0);
    }

    /** On the 2nd, 6th, 10th... execution: prints {@code FROZE <fire>} and freezes this JVM; true if it did. */
    private static boolean freezeOnSchedule(int[] executions, String fire, long freeze) throws Exception {
        if (++executions[0] % 4 != 2) {
            return false;
        }
        System.out.println("FROZE " + fire);
        freezeSelf(freeze);
        return true;
    }

    private static int insert(Connection conn, String job, String fire, long epoch, String node) throws SQLException {
        try (PreparedStatement ps =
                conn.prepareStatement("INSERT INTO business_effects(job, fire_key, epoch, node) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, job);
            ps.setString(2, fire);
            ps.setLong(3, epoch);
            ps.setString(4, node);
            return ps.executeUpdate();
        }
    }

    private static boolean settled(RunOutcome<?> o) {
        return o.status() == RunOutcome.Status.EXECUTED || o.status() == RunOutcome.Status.SKIPPED_ALREADY_DONE;
    }

    /** SIGSTOP to this JVM from a child shell, which sends SIGCONT {@code millis} later. */
    private static void freezeSelf(long millis) throws Exception {
        long pid = ProcessHandle.current().pid();
        Process p = new ProcessBuilder(
                        "sh", "-c", "kill -STOP " + pid + "; sleep " + millis / 1000.0 + "; kill -CONT " + pid)
                .inheritIO()
                .start();
        p.waitFor();
    }
}
