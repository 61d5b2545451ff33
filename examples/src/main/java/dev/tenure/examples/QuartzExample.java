package dev.tenure.examples;

import dev.tenure.JobContext;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.quartz.QuartzCoordination;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import java.util.TimeZone;
import javax.sql.DataSource;
import org.quartz.CronScheduleBuilder;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;

/**
 * Quartz: two nodes, each with its own RAM scheduler, fire the same every-second cron job for 4 s; Tenure runs each
 * slot on one of them. Node a plugs Tenure in with listeners, node b with the job factory. Prints who ran each slot,
 * then how many slots ran twice (0).
 */
public final class QuartzExample {

    static DataSource dataSource; // in Spring: inject it into the job

    public static void main(String[] args) throws Exception {
        try (ExampleServers servers = ExampleServers.postgresAndValkey(QuartzExample.class)) {
            servers.sql("CREATE TABLE report (slot text NOT NULL, node text NOT NULL, epoch bigint NOT NULL)");
            dataSource = servers.dataSource();
            ValkeyConfig valkey =
                    ValkeyConfig.standalone(servers.valkeyAddress()).build();
            try (Tenure tenureA = Tenure.builder()
                            .dataSource(dataSource)
                            .valkey(valkey)
                            .build();
                    Tenure tenureB = Tenure.builder()
                            .dataSource(dataSource)
                            .valkey(valkey)
                            .build()) {
                Scheduler nodeA = ramScheduler("node-a");
                Scheduler nodeB = ramScheduler("node-b");
                // tag::quartz-plug-in[]
                QuartzCoordination.builder(tenureA).build().registerListeners(nodeA);   // way 1: listeners
                nodeB.setJobFactory(QuartzCoordination.builder(tenureB).build().jobFactory());   // way 2
                // end::quartz-plug-in[]
                for (Scheduler node : new Scheduler[] {nodeA, nodeB}) {
                    schedule(node, Report.class);
                    node.start();
                }
                Thread.sleep(4_000);
                nodeA.shutdown(true);
                nodeB.shutdown(true);
            }
            servers.print(
                    "SELECT slot, string_agg(node || ' epoch ' || epoch, ', ') FROM report GROUP BY slot ORDER BY slot");
            servers.print(
                    "SELECT 'slots run: ' || count(DISTINCT slot) || ', slots run twice: ' || count(*) FILTER (WHERE n > 1) "
                            + "FROM (SELECT slot, count(*) AS n FROM report GROUP BY slot) s");
        }
    }

    static Scheduler ramScheduler(String name) throws SchedulerException {
        Properties p = new Properties();
        p.putAll(Map.of("org.quartz.scheduler.instanceName", name, "org.quartz.threadPool.threadCount", "2"));
        return new StdSchedulerFactory(p).getScheduler(); // RAMJobStore: each node keeps its own schedule
    }

    // tag::quartz-job[]
    static void schedule(Scheduler scheduler, Class<? extends Job> job) throws SchedulerException {
        scheduler.scheduleJob(JobBuilder.newJob(job).withIdentity("report", "reports").build(),
                TriggerBuilder.newTrigger().withIdentity("every-second", "reports")
                        .withSchedule(CronScheduleBuilder.cronSchedule("* * * * * ?")
                                .inTimeZone(TimeZone.getTimeZone("UTC"))       // the same instants on every node
                                .withMisfireHandlingInstructionDoNothing())   // fire keys stay on the cron grid
                        .build());
    }

    /** The job: its fire's run comes from the context; the write is fenced and completes the fire. */
    public static class Report implements Job {
        @Override
        public void execute(JobExecutionContext context) throws JobExecutionException {
            JobContext run = JobContext.current();
            try {
                String node = context.getScheduler().getSchedulerName();
                // the slot is the fire key: the trigger's scheduled fire time, the same on every node
                run.completeInTransaction(dataSource, c ->
                        Sql.update(c, "INSERT INTO report VALUES (?, ?, ?)", run.fireKey(), node, run.epoch()));
            } catch (SQLException | SchedulerException e) {
                throw new JobExecutionException("report " + run.fireKey() + " failed", e);
            }
        }
    }
    // end::quartz-job[]
}
