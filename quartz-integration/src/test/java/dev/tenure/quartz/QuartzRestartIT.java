package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.Tenure;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TimeZone;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quartz.CronScheduleBuilder;
import org.quartz.JobBuilder;
import org.quartz.Scheduler;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;

/**
 * Every node of a Quartz cluster down for a few slots (a restart, a rolling deploy on one node): the node that comes
 * back creates its cron trigger then, and Quartz's trigger answers no fire time before its start. Its sweeper must
 * still catch up the slots that fell due while no node ran (or record them MISSED); before {@code QuartzSchedule} read
 * a cron trigger's expression itself, it swept past them in silence (seen in {@link QuartzFiresAccountedIT} under
 * load: a replacement node never looked at the two slots before its start).
 */
class QuartzRestartIT {

    private static final String JOB = "quartz:restart:tick";
    private static QuartzServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new QuartzServers(QuartzRestartIT.class, null);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void everyNodeDownForSomeSlots_theNodeThatComesBack_catchesThemUp() throws Exception {
        try (Node first = new Node("first")) {
            await().atMost(Timing.scaled(Duration.ofSeconds(15)))
                    .until(() -> completed().size() >= 2);
        }
        Instant down = Instant.now();
        Thread.sleep(6_500); // three or four slots of */2 fall due with no node up
        Instant up = Instant.now();
        try (Node second = new Node("second")) {
            await().atMost(Timing.scaled(Duration.ofSeconds(30))).until(() -> settled(down, up));
        }
        Map<String, String> runs = runs();
        System.out.printf("[restart] down %s, up %s, runs %s%n", down, up, runs);
        for (Instant slot = slotAfter(down); slot.isBefore(up); slot = slot.plusSeconds(2)) {
            assertThat(runs.get(slot.toString()))
                    .as("slot %s, due while every node was down", slot)
                    .isIn("COMPLETED", "MISSED");
        }
        assertThat(runs.values())
                .as("the slots of the outage were caught up, not recorded MISSED (newest 10)")
                .doesNotContain("MISSED");
    }

    /** One application instance: a Quartz scheduler with the coordinated cron job, and its Tenure. */
    private static final class Node implements AutoCloseable {
        private final Scheduler scheduler;
        private final Tenure tenure;

        Node(String name) throws Exception {
            Properties p = new Properties();
            p.setProperty("org.quartz.scheduler.instanceName", "restart-" + name);
            p.setProperty("org.quartz.threadPool.threadCount", "2");
            p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
            scheduler = new StdSchedulerFactory(p).getScheduler();
            tenure = Tenure.builder()
                    .dataSource(servers.db.dataSource())
                    .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(4)))
                    .build();
            QuartzCoordination.builder(tenure)
                    .missedFires(MissedFirePolicy.catchUp().withMaxCatchUps(10).withGrace(Duration.ofSeconds(1)))
                    .build()
                    .registerListeners(scheduler);
            scheduler.scheduleJob(
                    JobBuilder.newJob(QuartzMisfireIT.Noop.class)
                            .withIdentity("tick", "restart")
                            .build(),
                    TriggerBuilder.newTrigger()
                            .withIdentity("tick", "restart")
                            .withSchedule(CronScheduleBuilder.cronSchedule("*/2 * * * * ?")
                                    .inTimeZone(TimeZone.getTimeZone("UTC")))
                            .build());
            scheduler.start();
        }

        @Override
        public void close() throws Exception {
            scheduler.shutdown(true);
            tenure.close();
        }
    }

    private static Instant slotAfter(Instant t) {
        return Instant.ofEpochSecond((t.getEpochSecond() / 2) * 2 + 2);
    }

    /** Whether every slot due while the nodes were down has a COMPLETED run or a MISSED record. */
    private static boolean settled(Instant down, Instant up) throws SQLException {
        Map<String, String> runs = runs();
        for (Instant slot = slotAfter(down); slot.isBefore(up); slot = slot.plusSeconds(2)) {
            String status = runs.get(slot.toString());
            if (!"COMPLETED".equals(status) && !"MISSED".equals(status)) {
                return false;
            }
        }
        return true;
    }

    private static java.util.List<String> completed() throws SQLException {
        return runs().entrySet().stream()
                .filter(e -> e.getValue().equals("COMPLETED"))
                .map(Map.Entry::getKey)
                .toList();
    }

    /** The status of each fire of the job in the ledger, by fire key. */
    private static Map<String, String> runs() throws SQLException {
        Map<String, String> out = new LinkedHashMap<>();
        try (Connection c = servers.db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT fire_key, status FROM tenure.job_runs WHERE job_key = '" + JOB
                        + "' ORDER BY fire_key")) {
            while (r.next()) {
                out.put(r.getString(1), r.getString(2));
            }
        }
        return out;
    }
}
