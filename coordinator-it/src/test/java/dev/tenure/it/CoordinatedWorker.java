package dev.tenure.it;

import dev.tenure.JobCoordinator;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * One scheduler node of the coordinator tests:
 * {@code <mode> <valkey address|-> <jdbc url> <user> <password> <job> <fires> <interval ms> <start epoch ms> <work ms>}.
 * Fire k is due at start + k·interval on every node (like a cron slot); each node runs it through the coordinator,
 * and the work writes the fire into {@code business_ledger} in a fenced transaction. Prints one line per fire:
 * {@code OUTCOME <fire> <status> <epoch>}.
 */
public final class CoordinatedWorker {

    public static void main(String[] a) throws Exception {
        String password = a[4].equals("-") ? "" : a[4];
        DataSource ds = TenureDataSources.hikari(a[2], a[3], password);
        Tenure tenure =
                Workers.tenure(a[0], a[1], ds, Duration.ofSeconds(2), Duration.ofMillis(300), Duration.ofSeconds(2));
        JobCoordinator c = tenure.coordinator();
        String job = a[5];
        int fires = Integer.parseInt(a[6]);
        long interval = Long.parseLong(a[7]);
        long start = Long.parseLong(a[8]);
        long work = Long.parseLong(a[9]);
        // warm up (class loading, pool, JIT) on a job of its own, so fire 0 is not slower than the others
        String self = Long.toString(ProcessHandle.current().pid());
        for (int i = 0; i < 5; i++) {
            c.run("warmup-" + self, "w" + i, RunPolicy.skipFire(), ctx -> null);
        }
        System.out.println("READY");
        for (int k = 0; k < fires; k++) {
            long due = start + k * interval;
            long sleep = due - System.currentTimeMillis();
            if (sleep > 0) {
                Thread.sleep(sleep);
            }
            String fire = "fire-" + k;
            try {
                // a node waits for the fire's holder generously: on a loaded machine one run can outlast the interval,
                // and a node that gave up then would leave the fire unrun; a waiter whose holder completes it skips it
                RunOutcome<Void> o = c.run(job, fire, RunPolicy.waitUpTo(Timing.scaled(Duration.ofSeconds(2))), ctx -> {
                    Thread.sleep(work);
                    FencedWrite.insert(ds, ctx, fire);
                    return null;
                });
                System.out.println(
                        "OUTCOME " + fire + " " + o.status() + " " + o.epoch() + (o.viaFallback() ? " fallback" : ""));
            } catch (RuntimeException e) {
                System.out.println(
                        "OUTCOME " + fire + " ERROR " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        System.out.println("DONE");
        tenure.close();
        System.exit(0);
    }
}
