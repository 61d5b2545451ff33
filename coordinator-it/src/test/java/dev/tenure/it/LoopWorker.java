package dev.tenure.it;

import dev.tenure.JobCoordinator;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.db.TenureDataSources;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A node that runs one job over and over (each run a fresh fire):
 * {@code <mode> <valkey|-> <jdbc url> <user> <password|-> <job> <seconds> <work ms> <ttl ms>}. The work prints
 * {@code START <fire> <epoch> <wall ms>}, sleeps in 10 ms steps, then writes its fire into {@code business_ledger}
 * in a fenced transaction. Prints {@code OUTCOME <fire> <status> <epoch>}.
 */
public final class LoopWorker {

    public static void main(String[] a) throws Exception {
        DataSource ds = TenureDataSources.hikari(a[2], a[3], a[4].equals("-") ? "" : a[4]);
        JobCoordinator c = Workers.tenure(
                        a[0],
                        a[1],
                        ds,
                        Duration.ofMillis(Long.parseLong(a[8])),
                        Duration.ofMillis(300),
                        Duration.ofSeconds(5))
                .coordinator();
        String job = a[5];
        long until = System.currentTimeMillis() + Long.parseLong(a[6]) * 1000;
        long work = Long.parseLong(a[7]);
        System.out.println("READY");
        while (System.currentTimeMillis() < until) {
            String fire = UUID.randomUUID().toString();
            try {
                RunOutcome<Void> o = c.run(job, fire, RunPolicy.waitUpTo(Duration.ofSeconds(10)), ctx -> {
                    System.out.println("START " + fire + " " + ctx.epoch() + " " + System.currentTimeMillis());
                    long end = System.currentTimeMillis() + work;
                    while (System.currentTimeMillis() < end) {
                        Thread.sleep(10);
                    }
                    FencedWrite.insert(ds, ctx, fire);
                    return null;
                });
                System.out.println(
                        "OUTCOME " + fire + " " + o.status() + " " + o.epoch() + " " + System.currentTimeMillis());
            } catch (RuntimeException e) {
                System.out.println("OUTCOME " + fire + " ERROR " + e);
            }
        }
        System.out.println("DONE");
        System.exit(0);
    }
}
