package dev.tenure.it;

import dev.tenure.CoordinatedLeaderElection;
import dev.tenure.LeaderElection;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.db.JdbcLeaseStore;
import dev.tenure.db.JdbcRunLedger;
import dev.tenure.db.TenureDataSources;
import dev.tenure.ValkeyConfig;
import dev.tenure.valkey.ValkeyLeaseStore;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A leader-elected worker: {@code <valkey|-> <jdbc url> <user> <password|-> <name> <seconds> <resign after ms|-1>}.
 * Prints {@code ELECTED <epoch> <wall ms>}, {@code REVOKED <wall ms> <reason>}; with a resign time it stops
 * gracefully that long after being elected and exits ({@code RESIGNED <wall ms>}).
 */
public final class ElectionWorker {

    public static void main(String[] a) throws Exception {
        JdbcLeaseStore dbStore = JdbcLeaseStore.create(TenureDataSources.hikari(a[1], a[2], a[3].equals("-") ? "" : a[3]));
        Leases database = Leases.of(dbStore);
        Leases valkey = a[0].equals("-") ? null
                : Leases.of(ValkeyLeaseStore.create(ValkeyConfig.standalone(a[0]).requestTimeout(Duration.ofMillis(300)).build()));
        long resignAfter = Long.parseLong(a[6]);
        CountDownLatch elected = new CountDownLatch(1);
        LeaderElection election = new CoordinatedLeaderElection(a[4], database, valkey, new JdbcRunLedger(dbStore),
                LeaseOptions.ofTtl(Duration.ofSeconds(2)), new LeaderElection.Listener() {
            @Override
            public void elected(long epoch) {
                System.out.println("ELECTED " + epoch + " " + System.currentTimeMillis());
                elected.countDown();
            }

            @Override
            public void revoked(String reason) {
                System.out.println("REVOKED " + System.currentTimeMillis() + " " + reason);
            }
        });
        election.start();
        System.out.println("READY");
        long until = System.currentTimeMillis() + Long.parseLong(a[5]) * 1000;
        if (resignAfter >= 0) {
            while (!elected.await(100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (System.currentTimeMillis() > until) {
                    System.out.println("DONE");
                    System.exit(0);
                }
            }
            Thread.sleep(resignAfter);
            election.stop();
            System.out.println("RESIGNED " + System.currentTimeMillis());
        } else {
            Thread.sleep(Math.max(0, until - System.currentTimeMillis()));
            election.stop();
        }
        System.out.println("DONE");
        System.exit(0);
    }
}
