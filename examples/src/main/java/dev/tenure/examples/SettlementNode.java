package dev.tenure.examples;

import dev.tenure.JobCoordinator;
import dev.tenure.LeaderElection;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.JdbcLeaseStore;
import dev.tenure.db.JdbcRunLedger;
import dev.tenure.db.TenureDataSources;
import dev.tenure.ValkeyConfig;
import dev.tenure.valkey.ValkeyLeaseStore;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.time.Duration;

/**
 * One application instance of the settlement demo:
 * {@code <name> <valkey|-> <jdbc url> <user> <password|-> <fires> <start ms> <interval ms>}. Fire k of the
 * "settlement" job is due at start + k·interval on every instance (a cron slot); the instance runs it through
 * the {@link JobCoordinator} and the work settles the slot: one row in {@code settlement}, written in a
 * transaction that fences first and completes the fire last ({@code completeInTransaction}). Three slots later it also tries that slot again with fail-fast (a catch-up
 * like a misfire policy): the run ledger executes it only if no run completed it. Each instance also
 * campaigns for the "reporter" role.
 */
public final class SettlementNode {

    public static void main(String[] a) throws Exception {
        String name = a[0];
        DataSource ds = TenureDataSources.hikari(a[2], a[3], a[4].equals("-") ? "" : a[4]);
        JdbcLeaseStore dbStore = JdbcLeaseStore.create(ds);
        Leases database = Leases.of(dbStore);
        JdbcRunLedger ledger = new JdbcRunLedger(dbStore);
        Leases valkey = a[1].equals("-") ? null : Leases.of(ValkeyLeaseStore.create(
                ValkeyConfig.standalone(a[1]).requestTimeout(Duration.ofMillis(300)).clientName(name).build()));
        LeaseOptions ttl = LeaseOptions.ofTtl(Duration.ofSeconds(2));
        JobCoordinator.Builder b = JobCoordinator.builder(database, ledger).leaseOptions(ttl)
                .mode(valkey == null ? JobCoordinator.Mode.DATABASE : JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK);
        if (valkey != null) {
            b.valkey(valkey);
        }
        JobCoordinator coordinator = b.build();
        Tenure.Builder elections = Tenure.builder().dataSource(ds).migrateSchema(false).leaseDefaults(ttl);
        if (valkey != null) {
            elections.valkey(ValkeyConfig.standalone(a[1]).requestTimeout(Duration.ofMillis(300)).clientName(name).build());
        }
        LeaderElection reporter = elections.build().leaderElection("reporter", new LeaderElection.Listener() {
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
        for (int k = 0; k < fires; k++) {
            long sleep = start + k * interval - System.currentTimeMillis();
            if (sleep > 0) {
                Thread.sleep(sleep);
            }
            settle(coordinator, ds, name, "slot-" + k, RunPolicy.waitUpTo(Duration.ofMillis(interval * 4 / 5)));
            if (k >= 3) {
                // catch-up of a slot a fault made us miss (like a misfire policy): the ledger runs it only if not done
                settle(coordinator, ds, name, "slot-" + (k - 3), RunPolicy.failFast());
            }
        }
        // a last sweep, as a scheduler's recovery on start-up would: settle whatever a fault left unsettled
        for (int k = 0; k < fires; k++) {
            settle(coordinator, ds, name, "slot-" + k, RunPolicy.waitUpTo(Duration.ofSeconds(3)));
        }
        reporter.stop();
        System.out.println("DONE");
        System.exit(0);
    }

    private static void settle(JobCoordinator coordinator, DataSource ds, String name, String fire, RunPolicy policy) {
            try {
                RunOutcome<Integer> o = coordinator.run("settlement", fire, policy, ctx -> {
                    System.out.println("START " + fire + " " + ctx.epoch());
                    Thread.sleep(300); // reading and summing the slot's payments
                    // fence, write, complete the fire, commit: a stale owner rolls back; a completed slot is final
                    return ctx.completeInTransaction(ds, c -> {
                        try (PreparedStatement ps = c.prepareStatement("INSERT INTO settlement(slot, epoch, node) VALUES (?, ?, ?)")) {
                            ps.setString(1, fire);
                            ps.setLong(2, ctx.epoch());
                            ps.setString(3, name);
                            return ps.executeUpdate();
                        }
                    });
                });
                System.out.println("OUTCOME " + fire + " " + o.status() + " " + o.epoch() + (o.viaFallback() ? " fallback" : ""));
            } catch (RuntimeException e) {
                System.out.println("OUTCOME " + fire + " ERROR " + e.getClass().getSimpleName());
            }
    }
}
