package dev.tenure.it;

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
import dev.tenure.testkit.Timing;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A node that runs its own schedule through the {@code JobCoordinator}, as users write one, a separate JVM for
 * {@link LoopFiresAccountedIT}: {@code <node> <valkey host:port> <jdbc url> <user> <password|-> <ttl ms>}. Two jobs,
 * {@code invoicing-catch-up} ({@link MissedFirePolicy#catchUp()}) and {@code invoicing-skip}
 * ({@link MissedFirePolicy#skip()}), both with a 2 s grace, are registered with {@link Tenure#register} on a 2 s fixed
 * rate, with a catch-up that runs the missed fire like any other. A loop per job waits for each slot and runs it with
 * {@link RunPolicy#skipFire()}: one invoice into {@code invoice} (no unique key on the slot) inside the run's fenced
 * completion, after a second of work. On SIGTERM a shutdown hook stops the loops (waiting for a run in progress),
 * then closes Tenure and the pool. Prints {@code READY}, {@code BEGIN <job> <fire key> <node> <epoch millis>} when
 * a fire holds its run, and {@code OUTCOME <job> <fire key> <node> <status> <epoch millis>} after each fire.
 */
public final class InvoicingLoopNode {

    static final String CATCH_UP = "invoicing-catch-up";
    static final String SKIP = "invoicing-skip";
    private static final Schedule.FixedRate RATE = new Schedule.FixedRate(Duration.ofSeconds(2));
    private static final Duration GRACE = Duration.ofSeconds(2);
    private static final Duration WORK = Duration.ofSeconds(1);

    private final String node;
    private final HikariDataSource dataSource;
    private final Tenure tenure;
    private final ScheduledThreadPoolExecutor loops = new ScheduledThreadPoolExecutor(2);

    private InvoicingLoopNode(String node, HikariDataSource dataSource, Tenure tenure) {
        this.node = node;
        this.dataSource = dataSource;
        this.tenure = tenure;
        loops.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    public static void main(String[] a) throws Exception {
        HikariDataSource ds = TenureDataSources.hikari(a[2], a[3], a[4].equals("-") ? "" : a[4]);
        Tenure tenure = Tenure.builder()
                .dataSource(ds)
                .valkey(ValkeyConfig.standalone(a[1]).build())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofMillis(Long.parseLong(a[5]))))
                .sweepInterval(Duration.ofMillis(500))
                .build();
        InvoicingLoopNode n = new InvoicingLoopNode(a[0], ds, tenure);
        n.start(CATCH_UP, MissedFirePolicy.catchUp().withMaxCatchUps(100).withGrace(GRACE));
        n.start(SKIP, MissedFirePolicy.skip().withGrace(GRACE));
        Runtime.getRuntime().addShutdownHook(new Thread(n::stop, "shutdown"));
        System.out.println("READY");
        Thread.currentThread().join();
    }

    private void start(String job, MissedFirePolicy policy) {
        // a catch-up waits for the job (a lease TTL), as ScheduledJob advises; the loop's own fires skip
        tenure.register(ScheduledJob.of(
                        job,
                        RATE,
                        fireKey -> fire(
                                job,
                                fireKey,
                                RunPolicy.waitUpTo(
                                        tenure.databaseLeases().defaults().ttl())))
                .withPolicy(policy));
        loop(job, Instant.now());
    }

    /** Runs the first slot after {@code after} when it is due, then the next one. */
    private void loop(String job, Instant after) {
        Instant slot = RATE.nextAfter(after).orElseThrow();
        long delay = Math.max(0, slot.toEpochMilli() - System.currentTimeMillis());
        try {
            loops.schedule(
                    () -> {
                        fire(job, slot.toString(), RunPolicy.skipFire());
                        loop(job, Instant.now().isAfter(slot) ? Instant.now() : slot);
                    },
                    delay,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // stopping
        }
    }

    /** One fire: one invoice, written and completed in one fenced transaction. */
    private void fire(String job, String fireKey, RunPolicy policy) {
        try {
            RunOutcome<Integer> o = tenure.coordinator().run(job, fireKey, policy, run -> {
                System.out.println("BEGIN " + job + " " + fireKey + " " + node + " " + System.currentTimeMillis());
                return run.completeInTransaction(dataSource, c -> {
                    pause(WORK);
                    try (PreparedStatement ps =
                            c.prepareStatement("INSERT INTO invoice (job, slot, node, epoch) VALUES (?, ?, ?, ?)")) {
                        ps.setString(1, job);
                        ps.setString(2, fireKey);
                        ps.setString(3, node);
                        ps.setLong(4, run.epoch());
                        return ps.executeUpdate();
                    }
                });
            });
            System.out.println("OUTCOME " + job + " " + fireKey + " " + node + " " + o.status() + " "
                    + System.currentTimeMillis() + (o.error() == null ? "" : " " + o.error()));
        } catch (RuntimeException e) {
            System.out.println(
                    "OUTCOME " + job + " " + fireKey + " " + node + " ERROR " + System.currentTimeMillis() + " " + e);
        }
    }

    private void stop() {
        loops.shutdown();
        try {
            loops.awaitTermination(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        tenure.close();
        dataSource.close();
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
