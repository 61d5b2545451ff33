package dev.tenure.console;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaderElection;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureDataSources;
import java.sql.PreparedStatement;
import java.time.Duration;

/**
 * One application process for {@link ConsoleBrowserIT}: {@code <jdbc url> <user> <password|-> <fires> <start ms>
 * <interval ms> <node name>}. Fire k of the "settlement" job is due at start + k·interval; it runs through the real coordinator
 * (database mode, 1.5 s leases) and settles in one fenced transaction that completes the fire. Its work takes 300 ms,
 * or 4 s for fires 3 and 6: the test kills or freezes whichever node runs those, and the long work keeps the kill and
 * the freeze inside the run on a loaded machine. It also campaigns for the "reporter" role. Prints {@code READY}, {@code START <fire>}, {@code OUTCOME <fire> <status>}, {@code DONE}, then
 * stays up two minutes (its election goes on) unless killed first.
 */
public final class TourNode {

    public static void main(String[] a) throws Exception {
        HikariDataSource ds = TenureDataSources.hikari(a[0], a[1], a[2].equals("-") ? "" : a[2]);
        Tenure tenure = Tenure.builder()
                .dataSource(ds)
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofMillis(1500)))
                .nodeName(a[6])
                .build();
        LeaderElection reporter = tenure.leaderElection("reporter", new LeaderElection.Listener() {
            @Override
            public void elected(long term) {
                System.out.println("LEADER " + term);
            }

            @Override
            public void revoked(String reason) {
                System.out.println("FOLLOWER " + reason);
            }
        });
        reporter.start();
        int fires = Integer.parseInt(a[3]);
        long start = Long.parseLong(a[4]);
        long interval = Long.parseLong(a[5]);
        System.out.println("READY");
        for (int k = 0; k < fires; k++) {
            Thread.sleep(Math.max(0, start + k * interval - System.currentTimeMillis()));
            String fire = "fire-" + k;
            int slot = k;
            try {
                RunOutcome<Integer> o = tenure.coordinator()
                        .run("settlement", fire, RunPolicy.waitUpTo(Duration.ofMillis(interval * 4 / 5)), ctx -> {
                            System.out.println("START " + fire);
                            Thread.sleep(slot == 3 || slot == 6 ? 4000 : 300);
                            return ctx.completeInTransaction(ds, c -> {
                                try (PreparedStatement ps =
                                        c.prepareStatement("INSERT INTO settlement VALUES (?, ?)")) {
                                    ps.setString(1, fire);
                                    ps.setLong(2, ctx.epoch());
                                    return ps.executeUpdate();
                                }
                            });
                        });
                System.out.println("OUTCOME " + fire + " " + o.status());
            } catch (RuntimeException e) {
                System.out.println("OUTCOME " + fire + " ERROR " + e);
            }
        }
        System.out.println("DONE");
        System.out.flush();
        Thread.sleep(120_000); // stays up (the reporter keeps its leader) until the test kills it
        Runtime.getRuntime().halt(0);
    }
}
