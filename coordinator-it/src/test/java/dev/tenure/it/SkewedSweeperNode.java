package dev.tenure.it;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.db.TenureDataSources;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * A node of {@link ClockSkewIT}, run with its wall clock shifted (libfaketime): it registers one job and so takes part
 * in (and, alone, wins) the sweeper election; it runs no fire of its own except the catch-ups its sweeper asks for.
 * {@code <jdbc url> <user> <password|-> <job> skip|catch-up <rate ms> <grace ms>}. Prints {@code WALL <Instant.now()>},
 * {@code REGISTERED after <ms>}, then {@code SKEW <tenure.clock.skew in s>} every 200 ms; closes its Tenure and exits when its
 * stdin ends.
 */
public final class SkewedSweeperNode {

    public static void main(String[] a) throws Exception {
        long started = System.nanoTime();
        System.out.println("WALL " + Instant.now());
        DataSource ds = TenureDataSources.hikari(a[0], a[1], a[2].equals("-") ? "" : a[2]);
        String job = a[3];
        MissedFirePolicy policy =
                a[4].equals("catch-up") ? MissedFirePolicy.catchUp().withMaxCatchUps(3) : MissedFirePolicy.skip();
        Duration rate = Duration.ofMillis(Long.parseLong(a[5]));
        Duration grace = Duration.ofMillis(Long.parseLong(a[6]));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Tenure tenure = Tenure.builder()
                .dataSource(ds)
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                .sweepInterval(Duration.ofMillis(250))
                .meterRegistry(registry)
                .build()) {
            tenure.register(ScheduledJob.of(
                            job,
                            Schedule.fixedRate(rate),
                            fire -> tenure.coordinator().run(job, fire, RunPolicy.skipFire(), ctx -> {
                                FencedWrite.insert(ds, ctx, job + "/" + fire);
                                return null;
                            }))
                    .withPolicy(policy.withGrace(grace)));
            System.out.println("REGISTERED after " + (System.nanoTime() - started) / 1_000_000 + " ms");
            Thread stdin = new Thread(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // until the test closes it
                    }
                } catch (java.io.IOException e) {
                    // the test is gone
                }
            });
            stdin.start();
            while (stdin.isAlive()) {
                Gauge g = registry.find("tenure.clock.skew").gauge(); // by name: MetricNames.CLOCK_SKEW
                System.out.println("SKEW " + (g == null ? "none" : Double.toString(g.value())));
                stdin.join(200); // unscaled: how often it prints, not a bound
            }
        }
        System.exit(0);
    }
}
