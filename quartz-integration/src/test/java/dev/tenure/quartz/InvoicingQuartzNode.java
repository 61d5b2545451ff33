package dev.tenure.quartz;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.JobContext;
import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.TenureDataSources;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Properties;
import java.util.TimeZone;
import org.quartz.CronScheduleBuilder;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.impl.matchers.EverythingMatcher;
import org.quartz.impl.matchers.KeyMatcher;
import org.quartz.listeners.JobListenerSupport;

/**
 * A Quartz node as users write one, a separate JVM for {@link QuartzFiresAccountedIT}:
 * {@code <node> <valkey host:port> <jdbc url> <user> <password|-> <ttl ms> <misfire threshold ms>}. A scheduler on a RAM
 * job store fires two jobs on the cron {@code *}{@code /2 * * * * ?} in UTC; each fire writes one invoice into
 * {@code invoice} (no unique key on the slot) inside the run's fenced completion, after a second of work. Both are
 * coordinated through {@link QuartzCoordination#builder(Tenure)}: {@code catch-up} with
 * {@link MissedFirePolicy#catchUp()}, {@code skip} with {@link MissedFirePolicy#skip()}, both with a 2 s grace. On
 * SIGTERM a shutdown hook stops the scheduler (waiting for running jobs), then closes Tenure and the pool. Prints
 * {@code READY}, {@code BEGIN <job key> <fire key> <node> <epoch millis>} when a fire holds its run, and
 * {@code NOT_RUN ...} for a fire that Tenure did not run.
 */
public final class InvoicingQuartzNode {

    static final JobKey CATCH_UP = JobKey.jobKey("catch-up", "invoicing");
    static final JobKey SKIP = JobKey.jobKey("skip", "invoicing");
    static final Duration GRACE = Duration.ofSeconds(2);
    static final Duration WORK = Duration.ofSeconds(1);

    static HikariDataSource dataSource;
    static String node;

    public static void main(String[] a) throws Exception {
        node = a[0];
        dataSource = TenureDataSources.hikari(a[2], a[3], a[4].equals("-") ? "" : a[4]);
        Tenure tenure = Tenure.builder()
                .dataSource(dataSource)
                .valkey(ValkeyConfig.standalone(a[1]).build())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofMillis(Long.parseLong(a[5]))))
                .sweepInterval(Duration.ofMillis(500))
                .build();
        Scheduler scheduler = new StdSchedulerFactory(properties(node, a[6])).getScheduler();
        QuartzCoordination.builder(tenure)
                .name("tenure-catch-up")
                .jobs(KeyMatcher.keyEquals(CATCH_UP))
                .missedFires(MissedFirePolicy.catchUp().withMaxCatchUps(100).withGrace(GRACE))
                .build()
                .registerListeners(scheduler);
        QuartzCoordination.builder(tenure)
                .name("tenure-skip")
                .jobs(KeyMatcher.keyEquals(SKIP))
                .missedFires(MissedFirePolicy.skip().withGrace(GRACE))
                .build()
                .registerListeners(scheduler);
        scheduler.getListenerManager().addJobListener(new NotRun(), EverythingMatcher.allJobs());
        schedule(scheduler, CATCH_UP);
        schedule(scheduler, SKIP);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                scheduler.shutdown(true);
                            } catch (SchedulerException e) {
                                e.printStackTrace();
                            }
                            tenure.close();
                            dataSource.close();
                        },
                        "shutdown"));
        scheduler.start();
        System.out.println("READY");
        Thread.currentThread().join();
    }

    private static void schedule(Scheduler scheduler, JobKey job) throws SchedulerException {
        scheduler.scheduleJob(
                JobBuilder.newJob(Invoicing.class).withIdentity(job).build(),
                TriggerBuilder.newTrigger()
                        .withIdentity(job.getName(), job.getGroup())
                        .withSchedule(CronScheduleBuilder.cronSchedule("*/2 * * * * ?")
                                .inTimeZone(TimeZone.getTimeZone("UTC")))
                        .build());
    }

    private static Properties properties(String node, String misfireThresholdMillis) {
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", "invoicing-" + node);
        p.setProperty("org.quartz.threadPool.threadCount", "4");
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        p.setProperty("org.quartz.jobStore.misfireThreshold", misfireThresholdMillis);
        return p;
    }

    /** Prints {@code NOT_RUN <job key> <fire key> <node> <status> <epoch millis>} for a fire that Tenure did not run. */
    static final class NotRun extends JobListenerSupport {
        @Override
        public String getName() {
            return "not-run";
        }

        @Override
        public void jobExecutionVetoed(JobExecutionContext context) {
            print(context);
        }

        @Override
        public void jobWasExecuted(JobExecutionContext context, JobExecutionException e) {
            if (QuartzCoordination.contextOf(context).isEmpty()) {
                print(context);
            }
        }

        private static void print(JobExecutionContext context) {
            System.out.println(
                    "NOT_RUN " + FireKeys.jobKey(context.getJobDetail().getKey()) + " "
                            + FireKeys.fireKey(context) + " " + node + " "
                            + QuartzCoordination.outcomeOf(context)
                                    .map(o -> o.status().name())
                                    .orElse("FAULT") + " "
                            + System.currentTimeMillis());
        }
    }

    /** One invoice per fire, written and completed in one fenced transaction. */
    public static final class Invoicing implements Job {
        @Override
        public void execute(JobExecutionContext context) throws JobExecutionException {
            JobContext run = JobContext.find()
                    .orElseThrow(() -> new JobExecutionException(
                            "not a coordinated fire: " + context.getTrigger().getKey()));
            System.out.println(
                    "BEGIN " + run.jobKey() + " " + run.fireKey() + " " + node + " " + System.currentTimeMillis());
            try {
                run.completeInTransaction(dataSource, c -> {
                    pause(WORK);
                    try (PreparedStatement ps =
                            c.prepareStatement("INSERT INTO invoice (job, slot, node, epoch) VALUES (?, ?, ?, ?)")) {
                        ps.setString(1, run.jobKey());
                        ps.setString(2, run.fireKey());
                        ps.setString(3, node);
                        ps.setLong(4, run.epoch());
                        return ps.executeUpdate();
                    }
                });
                System.out.println("DONE " + run.jobKey() + " " + run.fireKey() + " " + node);
            } catch (Exception e) {
                System.out.println("FAILED " + run.jobKey() + " " + run.fireKey() + " " + node + " " + e);
                throw new JobExecutionException(e);
            }
        }

        private static void pause(Duration d) {
            try {
                Thread.sleep(d.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
