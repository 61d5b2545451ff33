package dev.tenure.examples.quartz;

import dev.tenure.JobContext;
import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.db.JdbcLeaseStore;
import dev.tenure.db.JdbcRunLedger;
import dev.tenure.db.TenureDataSources;
import dev.tenure.quartz.QuartzCoordination;
import dev.tenure.ValkeyConfig;
import dev.tenure.valkey.ValkeyLeaseStore;
import org.quartz.CronScheduleBuilder;
import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.Scheduler;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;

import javax.sql.DataSource;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Properties;

/**
 * One application instance of the Quartz demo: {@code <name> <valkey address> <jdbc url> <user> <password|->}.
 * Its own in-memory (RAM) Quartz scheduler fires the "hourly-report" job every second, as each instance's would;
 * Tenure's listeners let one instance per slot run it. The job writes its slot in a fenced transaction that also completes the fire.
 */
public final class QuartzDemoNode {

    static DataSource dataSource;
    static String name;

    public static void main(String[] a) throws Exception {
        name = a[0];
        dataSource = TenureDataSources.hikari(a[2], a[3], a[4].equals("-") ? "" : a[4]);
        JdbcLeaseStore dbStore = JdbcLeaseStore.create(dataSource);
        JobCoordinator coordinator = JobCoordinator.builder(Leases.of(dbStore), new JdbcRunLedger(dbStore))
                .valkey(Leases.of(ValkeyLeaseStore.create(ValkeyConfig.standalone(a[1])
                        .requestTimeout(Duration.ofMillis(300)).clientName(name).build())))
                .leaseOptions(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                .build();

        Properties quartz = new Properties();
        quartz.setProperty("org.quartz.scheduler.instanceName", name);
        quartz.setProperty("org.quartz.threadPool.threadCount", "2");
        quartz.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        Scheduler scheduler = new StdSchedulerFactory(quartz).getScheduler();
        QuartzCoordination.builder(coordinator).build().registerListeners(scheduler);   // the one line
        scheduler.scheduleJob(JobBuilder.newJob(ReportJob.class).withIdentity("hourly-report", "reports").build(),
                TriggerBuilder.newTrigger().withIdentity("every-second", "reports")
                        .withSchedule(CronScheduleBuilder.cronSchedule("* * * * * ?").withMisfireHandlingInstructionDoNothing())
                        .build());
        scheduler.start();
        System.out.println("READY");
        Thread.currentThread().join();
    }

    /** The report: 150 ms of work, then its slot recorded under the fence, completing the fire in the same commit. */
    @DisallowConcurrentExecution
    public static final class ReportJob implements Job {
        @Override
        public void execute(JobExecutionContext context) throws JobExecutionException {
            JobContext run = QuartzCoordination.contextOf(context).orElseThrow();
            String slot = run.fireKey();
            System.out.println("RUNNING " + slot);
            try {
                Thread.sleep(150);
                run.completeInTransaction(dataSource, c -> {   // fence, write, complete the fire, commit
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO report (slot, node, epoch) VALUES (?, ?, ?)")) {
                        ps.setString(1, slot);
                        ps.setString(2, name);
                        ps.setLong(3, run.epoch());
                        return ps.executeUpdate();
                    }
                });
                System.out.println("DONE " + slot);
            } catch (Exception e) {
                throw new JobExecutionException("report for " + slot + " failed: " + e, e);
            }
        }
    }
}
