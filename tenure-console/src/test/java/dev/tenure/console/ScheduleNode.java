package dev.tenure.console;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.TenureDataSources;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;

/**
 * One application process for {@link MissedFiresBrowserIT}: {@code <jdbc url> <user> <password|-> <valkey host:port>}.
 * It registers the "billing" job (a fixed rate of 1 s; CATCH_UP of at most {@value #MAX_CATCH_UPS} fires, 1 s of
 * grace; a sweep every 500 ms) and runs a plain loop: at each slot it runs the current slot's fire through the
 * coordinator (Valkey and the database, 2 s leases). A run, the loop's or a catch-up, inserts one row into
 * {@code billing} (no unique key) in the transaction that completes the fire. Prints {@code READY} and
 * {@code OUTCOME <fire> <status> <loop|catch-up>}; runs until it is killed.
 */
public final class ScheduleNode {

    static final String JOB = "billing";
    static final int MAX_CATCH_UPS = 5;
    static final Duration GRACE = Duration.ofSeconds(1);
    static final Schedule.FixedRate RATE = new Schedule.FixedRate(Duration.ofSeconds(1));

    public static void main(String[] a) throws Exception {
        HikariDataSource ds = TenureDataSources.hikari(a[0], a[1], a[2].equals("-") ? "" : a[2]);
        Tenure tenure = Tenure.builder()
                .dataSource(ds)
                .valkey(ValkeyConfig.standalone(a[3]).build())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                .sweepInterval(Duration.ofMillis(500))
                .build();
        tenure.register(ScheduledJob.of(JOB, RATE, fire -> bill(tenure, ds, fire, "catch-up"))
                .withPolicy(MissedFirePolicy.catchUp()
                        .withMaxCatchUps(MAX_CATCH_UPS)
                        .withGrace(GRACE)));
        System.out.println("READY");
        Instant last = null;
        while (true) {
            Instant slot = RATE.slotOf(Instant.now());
            if (!slot.equals(last)) {
                last = slot;
                bill(tenure, ds, RATE.fireKey(slot), "loop");
            }
            long next = RATE.nextAfter(Instant.now()).orElseThrow().toEpochMilli();
            Thread.sleep(Math.max(1, next - System.currentTimeMillis()));
        }
    }

    private static void bill(Tenure tenure, HikariDataSource ds, String fire, String how) {
        try {
            RunOutcome<Integer> o = tenure.coordinator()
                    .run(
                            JOB,
                            fire,
                            RunPolicy.waitUpTo(Duration.ofSeconds(2)),
                            ctx -> ctx.completeInTransaction(ds, c -> {
                                try (PreparedStatement ps = c.prepareStatement(
                                        "INSERT INTO billing (fire_key, pid, how) " + "VALUES (?, ?, ?)")) {
                                    ps.setString(1, fire);
                                    ps.setLong(2, ProcessHandle.current().pid());
                                    ps.setString(3, how);
                                    return ps.executeUpdate();
                                }
                            }));
            System.out.println("OUTCOME " + fire + " " + o.status() + " " + how);
        } catch (RuntimeException e) {
            System.out.println("OUTCOME " + fire + " ERROR " + how + " " + e);
        }
    }
}
