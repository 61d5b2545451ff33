package dev.tenure.it;

import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureDataSources;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A node that runs one fire of one job and holds it while its work lasts:
 * {@code <mode> <valkey|-> <jdbc url> <user> <password|-> <job> <ttl ms> <work ms> <stuck|careful>}. A {@code stuck}
 * work ignores cancellation and interrupts until its time is up (a holder hung in a call). A {@code careful} work
 * checks {@code isCancelled()} and {@code isLeaseValid()} every 20 ms and stops when told to, as a well-written job
 * does. Either then writes its fire into {@code business_ledger} in a fenced transaction. Prints {@code READY},
 * {@code START <epoch> <wall ms>}, {@code CANCELLED <ms into the work>} (careful only), {@code OUTCOME <status>
 * <epoch> <wall ms>}, {@code DONE}.
 */
public final class HolderWorker {

    public static void main(String[] a) throws Exception {
        DataSource ds = TenureDataSources.hikari(a[2], a[3], a[4].equals("-") ? "" : a[4]);
        Tenure tenure = Workers.tenure(
                a[0], a[1], ds, Duration.ofMillis(Long.parseLong(a[6])), Duration.ofMillis(300), Duration.ofSeconds(5));
        String job = a[5];
        long work = Long.parseLong(a[7]);
        boolean careful = a[8].equals("careful");
        System.out.println("READY");
        RunOutcome<Void> o = tenure.coordinator().run(job, "held", RunPolicy.waitUpTo(Duration.ofSeconds(10)), ctx -> {
            long start = System.currentTimeMillis();
            System.out.println("START " + ctx.epoch() + " " + start);
            while (System.currentTimeMillis() < start + work) {
                if (careful && (ctx.isCancelled() || !ctx.isLeaseValid())) {
                    System.out.println("CANCELLED " + (System.currentTimeMillis() - start));
                    throw new IllegalStateException("cancelled: the run stops");
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    if (careful) {
                        throw e;
                    }
                }
            }
            FencedWrite.insert(ds, ctx, job);
            return null;
        });
        System.out.println("OUTCOME " + o.status() + " " + o.epoch() + " " + System.currentTimeMillis());
        tenure.close();
        System.out.println("DONE");
        System.exit(0);
    }
}
