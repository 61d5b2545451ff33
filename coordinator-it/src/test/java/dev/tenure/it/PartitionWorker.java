package dev.tenure.it;

import dev.tenure.JobCoordinator;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.Timing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * One node of {@link NetworkPartitionIT}, reaching Valkey and Postgres through its own relays:
 * {@code <valkey> <jdbc url> <user> <password|-> <job> <fires> <interval ms> <start ms> <ttl ms> <work ms> <held fire>
 * <hold file> <node>}, in {@link JobCoordinator.Mode#VALKEY_WITH_DATABASE_FALLBACK}.
 *
 * <p>Fire k is due at start + k·interval on every node; each node retries a fire until it is done here or elsewhere.
 * The work prints {@code START <fire> <epoch> <wall ms>}, lasts {@code work ms} (the held fire: as long as the hold
 * file exists, so the test decides when its write happens), then inserts one row into {@code partition_effects} (no
 * unique key) and completes the fire in the same transaction. After each run: {@code OUTCOME <fire> <status> <epoch>
 * <wall ms> <fallback|valkey> <error class|->}. After the last fire the node runs a job of its own until one run is
 * EXECUTED through Valkey (both links work again): {@code RECOVERED <wall ms>}, or {@code NOT_RECOVERED}. Then
 * {@code DONE}.
 */
public final class PartitionWorker {

    public static void main(String[] a) throws Exception {
        DataSource ds = TenureDataSources.hikari(a[1], a[2], a[3].equals("-") ? "" : a[3]);
        long ttl = Long.parseLong(a[8]);
        Tenure tenure = Workers.tenure(
                JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK.name(),
                a[0],
                ds,
                Duration.ofMillis(ttl),
                Duration.ofMillis(300),
                Duration.ofSeconds(1));
        JobCoordinator c = tenure.coordinator();
        String job = a[4];
        int fires = Integer.parseInt(a[5]);
        long interval = Long.parseLong(a[6]);
        long start = Long.parseLong(a[7]);
        long work = Long.parseLong(a[9]);
        String held = "fire-" + a[10];
        Path hold = Path.of(a[11]);
        String node = a[12];
        RunPolicy policy = new RunPolicy(Duration.ofMillis(ttl), true);
        System.out.println("READY");
        for (int k = 0; k < fires; k++) {
            long sleep = start + k * interval - System.currentTimeMillis();
            if (sleep > 0) {
                Thread.sleep(sleep);
            }
            String fire = "fire-" + k;
            long giveUp = System.currentTimeMillis() + Timing.scaledMillis(60_000);
            RunOutcome<Integer> o = null;
            while (o == null || !settled(o)) {
                if (System.currentTimeMillis() > giveUp) {
                    System.out.println("GAVE_UP " + fire);
                    break;
                }
                try {
                    o = c.run(job, fire, policy, ctx -> {
                        System.out.println("START " + fire + " " + ctx.epoch() + " " + System.currentTimeMillis());
                        long end = System.currentTimeMillis() + work;
                        while (fire.equals(held)
                                ? Files.exists(hold) && System.currentTimeMillis() < giveUp
                                : System.currentTimeMillis() < end) {
                            Thread.sleep(10);
                        }
                        return ctx.completeInTransaction(ds, conn -> {
                            try (PreparedStatement ps = conn.prepareStatement(
                                    "INSERT INTO partition_effects(job, fire_key, epoch, node) VALUES (?, ?, ?, ?)")) {
                                ps.setString(1, job);
                                ps.setString(2, fire);
                                ps.setLong(3, ctx.epoch());
                                ps.setString(4, node);
                                return ps.executeUpdate();
                            }
                        });
                    });
                    System.out.println("OUTCOME " + fire + " " + o.status() + " " + o.epoch() + " "
                            + System.currentTimeMillis() + " " + (o.viaFallback() ? "fallback" : "valkey") + " "
                            + (o.error() == null ? "-" : o.error().getClass().getSimpleName()));
                } catch (RuntimeException e) {
                    System.out.println("ERROR " + fire + " " + System.currentTimeMillis() + " " + e);
                    Thread.sleep(100);
                }
            }
        }
        recover(c, job + "-" + node);
        System.out.println("DONE");
        tenure.close();
        System.exit(0);
    }

    /** Runs a job of this node's own until a run is EXECUTED through Valkey (not the fallback). */
    private static void recover(JobCoordinator c, String ownJob) throws InterruptedException {
        long giveUp = System.currentTimeMillis() + Timing.scaledMillis(30_000);
        for (int i = 0; System.currentTimeMillis() < giveUp; i++) {
            try {
                RunOutcome<Void> o = c.run(ownJob, "recovery-" + i, RunPolicy.skipFire(), ctx -> null);
                if (o.status() == RunOutcome.Status.EXECUTED && !o.viaFallback()) {
                    System.out.println("RECOVERED " + System.currentTimeMillis());
                    return;
                }
            } catch (RuntimeException e) {
                System.out.println("ERROR recovery-" + i + " " + e);
            }
            Thread.sleep(200);
        }
        System.out.println("NOT_RECOVERED");
    }

    private static boolean settled(RunOutcome<?> o) {
        return o.status() == RunOutcome.Status.EXECUTED || o.status() == RunOutcome.Status.SKIPPED_ALREADY_DONE;
    }
}
