package dev.tenure.quartz;

import dev.tenure.JobContext;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.PoolConfig;
import dev.tenure.db.TenureDataSources;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.quartz.CronScheduleBuilder;
import org.quartz.InterruptableJob;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.ObjectAlreadyExistsException;
import org.quartz.Scheduler;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.impl.matchers.EverythingMatcher;
import org.quartz.listeners.JobListenerSupport;
import org.quartz.listeners.TriggerListenerSupport;

/**
 * One scheduler node of the Quartz tests, a separate JVM:
 * {@code <node> <store ram|jdbc> <style listeners|factory> <job> <valkey port> <jdbc url> <user> <password|-> <ttl ms>}.
 * Fires an every-second cron job; the job writes {@code (slot, node, epoch)} into {@code quartz_exec} in a fenced
 * transaction (with the job's name). While {@code quartz_control.stall} is true the executing node prints {@code STALLING <slot>} and sleeps
 * 5 s before the write, ignoring interrupts. The job requests recovery (a clustered store re-fires it when its node is declared dead). Prints {@code READY}, {@code EXECUTED <slot> <epoch>} and {@code NOT_RUN <slot> <why>}.
 */
public final class QuartzNode {

    static DataSource dataSource;
    static String node;

    public static void main(String[] a) throws Exception {
        node = a[0];
        boolean jdbc = a[1].equals("jdbc");
        boolean factory = a[2].equals("factory");
        String job = a[3];
        String password = a[7].equals("-") ? "" : a[7];
        dataSource = TenureDataSources.hikari(PoolConfig.builder(a[5])
                .user(a[6])
                .password(password)
                .connectionTimeout(Duration.ofSeconds(1))
                .statementTimeout(Duration.ofSeconds(2))
                .build());
        Tenure tenureInstance = Tenure.builder()
                .dataSource(dataSource)
                .valkey(ValkeyConfig.standalone("127.0.0.1:" + a[4])
                        .requestTimeout(Duration.ofMillis(300))
                        .build())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofMillis(Long.parseLong(a[8]))))
                .fallbackBreaker(1, Duration.ofSeconds(1))
                .build();
        QuartzCoordination tenure = QuartzCoordination.builder(tenureInstance).build();

        Scheduler scheduler = new StdSchedulerFactory(properties(node, jdbc, a[5], a[6], password)).getScheduler();
        if (factory) {
            scheduler.setJobFactory(tenure.jobFactory());
        } else {
            tenure.registerListeners(scheduler);
        }
        scheduler.getListenerManager().addJobListener(new Reporter(), EverythingMatcher.allJobs());
        scheduler
                .getListenerManager()
                .addTriggerListener(
                        new TriggerListenerSupport() {
                            @Override
                            public String getName() {
                                return "it-recovery-reporter";
                            }

                            @Override
                            public void triggerFired(Trigger trigger, JobExecutionContext context) {
                                if (context.isRecovering()) {
                                    System.out.println("RECOVERING " + safeFireKey(context));
                                }
                            }
                        },
                        EverythingMatcher.allTriggers());
        JobDetail detail = JobBuilder.newJob(SlotJob.class)
                .withIdentity(job, "it")
                .requestRecovery(true)
                .build();
        // Quartz's default misfire instruction: with DO_NOTHING ("never fire late") Tenure would record a missed slot
        // MISSED instead of catching it up (MisfireRule), and QuartzNodesIT catches up the slot of a killed node
        Trigger trigger = TriggerBuilder.newTrigger()
                .withIdentity(job, "it")
                .withSchedule(CronScheduleBuilder.cronSchedule("* * * * * ?"))
                .build();
        try {
            scheduler.scheduleJob(detail, trigger);
        } catch (ObjectAlreadyExistsException e) {
            // a clustered job store: another node scheduled it already
        }
        scheduler.start();
        System.out.println("READY");
        Thread.currentThread().join();
    }

    static Properties properties(String node, boolean jdbc, String url, String user, String password) {
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", "tenure-it");
        p.setProperty("org.quartz.scheduler.instanceId", node);
        p.setProperty("org.quartz.threadPool.threadCount", "4");
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        if (jdbc) {
            p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
            p.setProperty("org.quartz.jobStore.driverDelegateClass", "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
            p.setProperty("org.quartz.jobStore.dataSource", "qz");
            p.setProperty("org.quartz.jobStore.isClustered", "true");
            p.setProperty("org.quartz.jobStore.clusterCheckinInterval", "1000");
            p.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
            p.setProperty("org.quartz.dataSource.qz.provider", "hikaricp");
            p.setProperty("org.quartz.dataSource.qz.driver", "org.postgresql.Driver");
            // A node frozen (SIGSTOP) inside one of Quartz's short lock transactions would hold QRTZ_LOCKS and stall
            // the other nodes' trigger acquisition and recovery until Postgres ends its session: bound that (README).
            p.setProperty(
                    "org.quartz.dataSource.qz.URL",
                    url + (url.contains("?") ? "&" : "?") + "options=-c%20idle_in_transaction_session_timeout%3D5000");
            p.setProperty("org.quartz.dataSource.qz.user", user);
            p.setProperty("org.quartz.dataSource.qz.password", password);
            p.setProperty("org.quartz.dataSource.qz.maxConnections", "6");
        }
        return p;
    }

    /** The coordinated job: one fenced insert per slot, completing the fire in the same transaction. */
    public static final class SlotJob implements InterruptableJob {
        private volatile Thread runner;

        @Override
        public void execute(JobExecutionContext context) throws JobExecutionException {
            runner = Thread.currentThread();
            context.put("ran", Boolean.TRUE);
            String slot = FireKeys.fireKey(context);
            JobContext run = JobContext.find()
                    .orElseThrow(() -> new JobExecutionException("no coordinated run in the context of " + slot));
            try {
                if (stalled()) {
                    System.out.println("STALLING " + slot);
                    sleepIgnoringInterrupts(5_000);
                }
                run.completeInTransaction(
                        dataSource,
                        c -> { // fenced, and the fire completes in the same commit
                            try (PreparedStatement ps = c.prepareStatement(
                                    "INSERT INTO quartz_exec (job, slot, node, epoch) VALUES (?, ?, ?, ?)")) {
                                ps.setString(1, context.getJobDetail().getKey().getName());
                                ps.setString(2, slot);
                                ps.setString(3, node);
                                ps.setLong(4, run.epoch());
                                return ps.executeUpdate();
                            }
                        });
                System.out.println("EXECUTED " + slot + " " + run.epoch());
            } catch (Exception e) {
                System.out.println("JOB_FAILED " + slot + " " + e);
                throw new JobExecutionException(e);
            }
        }

        /**
         * The stall does not honour Quartz's interrupt (a job blocked where interrupts do not reach, as in much real
         * I/O): a frozen node's job then always gets as far as its write, and the fence alone must refuse it. With an
         * interruptible sleep, the lease-loss interrupt raced the sleep's end on resume (CI saw the interrupt win once).
         */
        private static void sleepIgnoringInterrupts(long millis) {
            long end = System.nanoTime() + millis * 1_000_000;
            for (long left = millis * 1_000_000; left > 0; left = end - System.nanoTime()) {
                try {
                    Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
                } catch (InterruptedException ignored) {
                    // ignored on purpose: see above
                }
            }
        }

        private static boolean stalled() throws Exception {
            try (Connection c = dataSource.getConnection();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT stall FROM quartz_control")) {
                return rs.next() && rs.getBoolean(1);
            }
        }

        @Override
        public void interrupt() {
            Thread t = runner;
            if (t != null) {
                System.out.println("INTERRUPTED");
                t.interrupt();
            }
        }
    }

    /** Prints every fire that did not run the job, with Tenure's reason. */
    static final class Reporter extends JobListenerSupport {
        @Override
        public String getName() {
            return "it-reporter";
        }

        @Override
        public void jobExecutionVetoed(JobExecutionContext context) {
            print(context, "vetoed");
        }

        @Override
        public void jobWasExecuted(JobExecutionContext context, JobExecutionException e) {
            if (context.get("ran") == null) {
                print(context, "skipped");
            }
        }

        private static void print(JobExecutionContext context, String how) {
            String why = QuartzCoordination.outcomeOf(context)
                    .map(o -> o.status().name())
                    .orElse("FAULT");
            System.out.println("NOT_RUN " + safeFireKey(context) + " " + how + ":" + why);
        }
    }

    static String safeFireKey(JobExecutionContext context) {
        try {
            return FireKeys.fireKey(context);
        } catch (RuntimeException e) {
            return "BAD_FIRE_KEY(" + e + ")";
        }
    }
}
