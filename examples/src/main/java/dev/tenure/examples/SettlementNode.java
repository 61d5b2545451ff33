package dev.tenure.examples;

import dev.tenure.JobCoordinator;
import dev.tenure.LeaderElection;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * One application instance of the settlement tour:
 * {@code <name> <valkey|-> <jdbc url> <user> <password|-> <fires> <start ms> <interval ms>}. Fire k of the
 * "settlement" job is due at start + k·interval on every instance (a cron slot); the instance runs it through
 * the {@link JobCoordinator} and the work settles the slot: one row in {@code settlement}, written in a
 * transaction that fences first and completes the fire last ({@code completeInTransaction}). Three slots later it also
 * tries that slot again with skipFire (a catch-up like a misfire policy): it runs only if no run completed it. Each
 * instance also campaigns for the "reporter" role. Prints {@code START}, {@code OUTCOME}, {@code LEADER} and
 * {@code FOLLOWER} lines, then {@code DONE}.
 */
public final class SettlementNode {

    public static void main(String[] a) throws Exception {
        String name = a[0];
        DataSource ds = TourNodes.pool(a, 2);
        Tenure tenure = TourNodes.tenure(ds, a[1], name);
        LeaderElection reporter = tenure.leaderElection("reporter", new LeaderElection.Listener() {
            @Override
            public void elected(long epoch) {
                System.out.println("LEADER " + epoch + " " + System.currentTimeMillis());
            }

            @Override
            public void revoked(String reason) {
                System.out.println("FOLLOWER " + System.currentTimeMillis() + " " + reason);
            }
        });
        reporter.start();
        int fires = Integer.parseInt(a[5]);
        long start = Long.parseLong(a[6]);
        long interval = Long.parseLong(a[7]);
        System.out.println("READY");
        JobCoordinator coordinator = tenure.coordinator();
        for (int k = 0; k < fires; k++) {
            long sleep = start + k * interval - System.currentTimeMillis();
            if (sleep > 0) {
                Thread.sleep(sleep);
            }
            settle(coordinator, ds, name, "slot-" + k, RunPolicy.waitUpTo(Duration.ofMillis(interval * 4 / 5)));
            if (k >= 3) {
                // catch-up of a slot a fault made us miss (like a misfire policy): the ledger runs it only if not done
                settle(coordinator, ds, name, "slot-" + (k - 3), RunPolicy.skipFire());
            }
        }
        // a last sweep, as a scheduler's recovery on start-up would: settle whatever a fault left unsettled
        for (int k = 0; k < fires; k++) {
            settle(coordinator, ds, name, "slot-" + k, RunPolicy.waitUpTo(Duration.ofSeconds(3)));
        }
        tenure.close(); // stops the election too: the role goes to another instance at once
        System.out.println("DONE");
        System.exit(0);
    }

    private static void settle(JobCoordinator coordinator, DataSource ds, String name, String fire, RunPolicy policy) {
        try {
            RunOutcome<Integer> o = coordinator.run("settlement", fire, policy, ctx -> {
                System.out.println("START " + fire + " " + ctx.epoch());
                Thread.sleep(300); // reading and summing the slot's payments
                // fence, write, complete the fire, commit: a stale owner rolls back; a completed slot is final
                return ctx.completeInTransaction(
                        ds,
                        c -> Sql.update(
                                c,
                                "INSERT INTO settlement (slot, epoch, node) VALUES (?, ?, ?)",
                                fire,
                                ctx.epoch(),
                                name));
            });
            System.out.println(
                    "OUTCOME " + fire + " " + o.status() + " " + o.epoch() + (o.viaFallback() ? " fallback" : ""));
        } catch (RuntimeException e) {
            System.out.println("OUTCOME " + fire + " ERROR " + e.getClass().getSimpleName());
        }
    }
}
