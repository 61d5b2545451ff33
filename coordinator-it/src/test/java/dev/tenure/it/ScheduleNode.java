package dev.tenure.it;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.db.TenureDataSources;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A process of an application that registers scheduled jobs, a separate JVM for {@link JobsOfOtherProcessesIT} and
 * {@link ScheduleChangeIT}: {@code <node> <application> <jdbc url> <user> <password|-> <ttl ms> <register at, epoch
 * ms (0: now)> <job spec>...}, database mode, a 200 ms sweep interval. A job spec is
 * {@code <job>:<period ms>:<catch-up|skip>:<grace ms>:<max catch-ups>:<idle|loop>:<delay ms>}: the job is registered
 * on a fixed rate with that policy, and its catch-up runs the fire through the coordinator. With {@code loop} the
 * process also runs every slot of its schedule itself, {@code delay} after the slot begins. Every run writes one row
 * into {@code fire_effect (job, fire_key, node, via)} inside its fenced completion ({@code via}: {@code catch-up} or
 * {@code loop}); the table has no unique key, so a fire that ran twice shows twice. Prints {@code READY} once every job
 * is registered, {@code DUE <job> <fire key> <epoch ms>} when a slot of a looping job begins, {@code BEGIN <job> <fire
 * key> <via>} when a run holds its fire and {@code OUTCOME <job> <fire key> <via> <status>} after it. SIGTERM closes
 * Tenure.
 */
public final class ScheduleNode {

    private record Spec(String job, Schedule.FixedRate rate, MissedFirePolicy policy, boolean loop, Duration delay) {

        static Spec parse(String s) {
            String[] p = s.split(":");
            MissedFirePolicy base = p[2].equals("skip") ? MissedFirePolicy.skip() : MissedFirePolicy.catchUp();
            return new Spec(
                    p[0],
                    new Schedule.FixedRate(Duration.ofMillis(Long.parseLong(p[1]))),
                    base.withGrace(Duration.ofMillis(Long.parseLong(p[3]))).withMaxCatchUps(Integer.parseInt(p[4])),
                    p[5].equals("loop"),
                    Duration.ofMillis(Long.parseLong(p[6])));
        }
    }

    private final String node;
    private final HikariDataSource dataSource;
    private final Tenure tenure;

    private ScheduleNode(String node, HikariDataSource dataSource, Tenure tenure) {
        this.node = node;
        this.dataSource = dataSource;
        this.tenure = tenure;
    }

    public static void main(String[] a) throws Exception {
        HikariDataSource ds = TenureDataSources.hikari(a[2], a[3], a[4].equals("-") ? "" : a[4]);
        Tenure tenure = Tenure.builder()
                .dataSource(ds)
                .nodeName(a[0])
                .application(a[1])
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofMillis(Long.parseLong(a[5]))))
                .sweepInterval(Duration.ofMillis(200))
                .build();
        ScheduleNode n = new ScheduleNode(a[0], ds, tenure);
        Runtime.getRuntime().addShutdownHook(new Thread(n::stop, "shutdown"));
        sleepUntil(Long.parseLong(a[6]));
        List<Spec> specs = new ArrayList<>();
        for (int i = 7; i < a.length; i++) {
            Spec s = Spec.parse(a[i]);
            specs.add(s);
            tenure.register(ScheduledJob.of(
                            s.job(),
                            s.rate(),
                            fireKey -> n.fire(
                                    s.job(),
                                    fireKey,
                                    "catch-up",
                                    RunPolicy.waitUpTo(
                                            tenure.databaseLeases().defaults().ttl())))
                    .withPolicy(s.policy()));
        }
        System.out.println("READY");
        for (Spec s : specs) {
            if (s.loop()) {
                Thread t = new Thread(() -> n.loop(s), "loop-" + s.job());
                t.setDaemon(true);
                t.start();
            }
        }
        Thread.currentThread().join();
    }

    /** Runs every slot of the job's schedule after now, {@code delay} after it begins. */
    private void loop(Spec s) {
        Instant after = Instant.now();
        while (true) {
            Instant slot = s.rate().nextAfter(after).orElseThrow();
            sleepUntil(slot.toEpochMilli());
            System.out.println("DUE " + s.job() + " " + slot + " " + System.currentTimeMillis());
            sleepUntil(slot.toEpochMilli() + s.delay().toMillis());
            fire(s.job(), slot.toString(), "loop", RunPolicy.skipFire());
            after = slot;
        }
    }

    /** One run: one row in {@code fire_effect}, written and completed in one fenced transaction. */
    private void fire(String job, String fireKey, String via, RunPolicy policy) {
        try {
            RunOutcome<Integer> o = tenure.coordinator().run(job, fireKey, policy, run -> {
                System.out.println("BEGIN " + job + " " + fireKey + " " + via);
                return run.completeInTransaction(dataSource, c -> {
                    try (PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO fire_effect (job, fire_key, node, via) VALUES (?, ?, ?, ?)")) {
                        ps.setString(1, job);
                        ps.setString(2, fireKey);
                        ps.setString(3, node);
                        ps.setString(4, via);
                        return ps.executeUpdate();
                    }
                });
            });
            System.out.println("OUTCOME " + job + " " + fireKey + " " + via + " " + o.status());
        } catch (RuntimeException e) {
            System.out.println("OUTCOME " + job + " " + fireKey + " " + via + " ERROR " + e);
        }
    }

    private void stop() {
        tenure.close();
        dataSource.close();
    }

    private static void sleepUntil(long epochMillis) {
        long left = epochMillis - System.currentTimeMillis();
        while (left > 0) {
            try {
                Thread.sleep(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            left = epochMillis - System.currentTimeMillis();
        }
    }
}
