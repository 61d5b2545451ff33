package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TimeZone;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quartz.CronScheduleBuilder;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobExecutionContext;
import org.quartz.Scheduler;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;

/**
 * A coordinated cron trigger that misfires: its scheduler held back (standby) longer than the misfire threshold, as
 * the scheduler of a frozen node is. Quartz's default instruction for cron triggers fires once "now", with a
 * scheduled fire time that is no slot of the schedule. Before {@code FireKeys.slotOf}, Tenure ran it as a new fire
 * (seen: a run of 00:47:27.297Z under policy SKIP), one the schedule and the policy never asked for; now it counts for
 * the latest slot it missed, so every run is of a slot (finding of issue 21, acceptance 2; see
 * {@link QuartzFiresAccountedIT}).
 */
class QuartzMisfireIT {

    private static QuartzServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new QuartzServers(QuartzMisfireIT.class, null);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    /** Does nothing: the ledger records each fire it ran. */
    public static final class Noop implements Job {
        @Override
        public void execute(JobExecutionContext context) {}
    }

    @Test
    void misfiredCronTrigger_fireOnceNow_runsNoFireThatIsNotASlot() throws Exception {
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", "misfire");
        p.setProperty("org.quartz.threadPool.threadCount", "2");
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        p.setProperty("org.quartz.jobStore.misfireThreshold", "1000");
        Scheduler scheduler = new StdSchedulerFactory(p).getScheduler();
        try (Tenure tenure = Tenure.builder()
                .dataSource(servers.db.dataSource())
                .valkey(ValkeyConfig.standalone(servers.valkey.address()).build())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(4)))
                .build()) {
            QuartzCoordination.builder(tenure)
                    .missedFires(MissedFirePolicy.skip().withGrace(Duration.ofSeconds(1)))
                    .build()
                    .registerListeners(scheduler);
            scheduler.scheduleJob(
                    JobBuilder.newJob(Noop.class)
                            .withIdentity("tick", "misfire")
                            .build(),
                    TriggerBuilder.newTrigger()
                            .withIdentity("tick", "misfire")
                            .withSchedule(CronScheduleBuilder.cronSchedule("*/2 * * * * ?")
                                    .inTimeZone(TimeZone.getTimeZone("UTC")))
                            .build());
            scheduler.start();
            await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(() -> runs().size() >= 2);
            scheduler.standby(); // held back past the misfire threshold, as a frozen node's scheduler is
            int before = runs().size();
            Thread.sleep(5_000);
            scheduler.start();
            await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(() -> runs().size() >= before + 2);
            scheduler.shutdown(true);
        } finally {
            scheduler.shutdown(true);
        }
        List<String> runs = runs();
        System.out.println("[misfire] fires run: " + runs);
        assertThat(runs)
                .as("the runs (fire key, status) of a cron trigger on */2: each a slot")
                .allMatch(run -> onSlot(Instant.parse(run.split(" ")[0])));
    }

    private static boolean onSlot(Instant t) {
        return t.getNano() == 0 && t.getEpochSecond() % 2 == 0;
    }

    /** Each run of the job in the ledger (not the fires recorded MISSED): {@code <fire key> <status>}. */
    private static List<String> runs() throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = servers.db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT fire_key || ' ' || status FROM tenure.job_runs "
                        + "WHERE job_key = 'quartz:misfire:tick' AND status <> 'MISSED' ORDER BY fire_key")) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }
}
