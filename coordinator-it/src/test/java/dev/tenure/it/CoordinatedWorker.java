package dev.tenure.it;

import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.db.JdbcLeaseStore;
import dev.tenure.db.JdbcRunLedger;
import dev.tenure.db.TenureDataSources;
import dev.tenure.ValkeyConfig;
import dev.tenure.valkey.ValkeyLeaseStore;

import javax.sql.DataSource;
import java.time.Duration;

/**
 * One scheduler node of the coordinator tests:
 * {@code <mode> <valkey address|-> <jdbc url> <user> <password> <job> <fires> <interval ms> <start epoch ms> <work ms>}.
 * Fire k is due at start + k·interval on every node (like a cron slot); each node runs it through the coordinator,
 * and the work writes the fire into {@code business_ledger} in a fenced transaction. Prints one line per fire:
 * {@code OUTCOME <fire> <status> <epoch>}.
 */
public final class CoordinatedWorker {

    public static void main(String[] a) throws Exception {
        JobCoordinator.Mode mode = JobCoordinator.Mode.valueOf(a[0]);
        String password = a[4].equals("-") ? "" : a[4];
        DataSource ds = TenureDataSources.hikari(a[2], a[3], password);
        JdbcLeaseStore dbStore = JdbcLeaseStore.create(ds);
        Leases database = Leases.of(dbStore);
        Leases valkey = a[1].equals("-") ? null
                : Leases.of(ValkeyLeaseStore.create(ValkeyConfig.standalone(a[1]).requestTimeout(Duration.ofMillis(300)).build()));
        JobCoordinator.Builder b = JobCoordinator.builder(database, new JdbcRunLedger(dbStore)).mode(mode)
                .leaseOptions(LeaseOptions.ofTtl(Duration.ofSeconds(2))).fallbackBreaker(2, Duration.ofSeconds(2));
        if (valkey != null) {
            b.valkey(valkey);
        }
        JobCoordinator c = b.build();
        String job = a[5];
        int fires = Integer.parseInt(a[6]);
        long interval = Long.parseLong(a[7]);
        long start = Long.parseLong(a[8]);
        long work = Long.parseLong(a[9]);
        // warm up (class loading, pool, JIT) on a job of its own, so fire 0 is not slower than the others
        String self = Long.toString(ProcessHandle.current().pid());
        for (int i = 0; i < 5; i++) {
            c.run("warmup-" + self, "w" + i, RunPolicy.failFast(), ctx -> null);
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
                RunOutcome<Void> o = c.run(job, fire, RunPolicy.waitUpTo(Duration.ofMillis(interval * 4 / 5)), ctx -> {
                    Thread.sleep(work);
                    FencedWrite.insert(ds, ctx, fire);
                    return null;
                });
                System.out.println("OUTCOME " + fire + " " + o.status() + " " + o.epoch() + (o.viaFallback() ? " fallback" : ""));
            } catch (RuntimeException e) {
                System.out.println("OUTCOME " + fire + " ERROR " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        System.out.println("DONE");
        database.close();
        if (valkey != null) {
            valkey.close();
        }
        System.exit(0);
    }
}
