package dev.tenure.it;

import dev.tenure.LeaderElection;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.TenureDataSources;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A leader-elected worker on {@link Tenure#leaderElection}: {@code <valkey|-> <jdbc url> <user> <password|-> <name>
 * <seconds> <resign after ms|-1> [ttl ms]} ({@code -} for Valkey: the database-only election). TTL 2 s unless given. Prints
 * {@code ELECTED <epoch> <wall ms>}, {@code REVOKED <wall ms> <reason>}; with a resign time it stops gracefully that
 * long after being elected and exits ({@code RESIGNED <wall ms>}).
 */
public final class ElectionWorker {

    public static void main(String[] a) throws Exception {
        Tenure.Builder b = Tenure.builder()
                .dataSource(TenureDataSources.hikari(a[1], a[2], a[3].equals("-") ? "" : a[3]))
                .migrateSchema(false)
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofMillis(a.length > 7 ? Long.parseLong(a[7]) : 2000)));
        if (!a[0].equals("-")) {
            b.valkey(ValkeyConfig.standalone(a[0])
                    .requestTimeout(Duration.ofMillis(300))
                    .build());
        }
        Tenure tenure = b.build();
        long resignAfter = Long.parseLong(a[6]);
        CountDownLatch elected = new CountDownLatch(1);
        LeaderElection election = tenure.leaderElection(a[4], new LeaderElection.Listener() {
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
            while (!elected.await(100, TimeUnit.MILLISECONDS)) { // unscaled: a poll step; the bound is until
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
        tenure.close();
        System.out.println("DONE");
        System.exit(0);
    }
}
