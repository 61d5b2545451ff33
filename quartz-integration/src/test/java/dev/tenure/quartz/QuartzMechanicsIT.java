package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.JobContext;
import dev.tenure.JobCoordinator;
import dev.tenure.Lease;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import dev.tenure.integration.ClaimedRun;
import dev.tenure.integration.RunClaim;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.quartz.InterruptableJob;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;
import org.quartz.impl.JobExecutionContextImpl;
import org.quartz.impl.matchers.EverythingMatcher;
import org.quartz.impl.matchers.GroupMatcher;
import org.quartz.listeners.JobListenerSupport;
import org.quartz.listeners.TriggerListenerSupport;
import org.quartz.spi.OperableTrigger;
import org.quartz.spi.TriggerFiredBundle;

/** The plug-in mechanics inside one scheduler, against real Valkey and Postgres. */
class QuartzMechanicsIT {

    private static QuartzServers servers;
    static final List<String> seen = new CopyOnWriteArrayList<>();
    static final AtomicInteger interrupts = new AtomicInteger();
    private final List<Tenure> tenures = new ArrayList<>();
    private Scheduler scheduler;

    @BeforeAll
    static void start() throws Exception {
        servers = new QuartzServers(QuartzMechanicsIT.class, null);
        QuartzNode.dataSource = servers.db.dataSource();
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @AfterEach
    void shutdown() throws SchedulerException {
        seen.clear();
        try {
            if (scheduler != null) {
                scheduler.shutdown(false);
            }
        } finally {
            tenures.forEach(Tenure::close);
            tenures.clear();
        }
    }

    /** A Tenure on the servers with lease TTL {@code ttl}, closed after the test. */
    private Tenure tenure(Duration ttl) {
        Tenure tenure = servers.tenure(ttl);
        tenures.add(tenure);
        return tenure;
    }

    private Scheduler scheduler(String name) throws SchedulerException {
        scheduler = QuartzServers.ramScheduler(name);
        return scheduler;
    }

    private static Trigger onceNow(String name) {
        return TriggerBuilder.newTrigger().withIdentity(name, "m").startNow().build();
    }

    /** True if another owner can take the job's leases at once (the fire's leases were released, not leaked). */
    private static boolean jobIsFree(JobCoordinator other, String jobKey, String probe) {
        RunClaim claim = other.begin(jobKey, probe, RunPolicy.skipFire());
        if (claim instanceof RunClaim.Claimed c) {
            c.run().finish(null, null);
            return true;
        }
        return false;
    }

    @Test
    void listeners_jobReadsItsLeaseEpochAndFence_fromTheContext() throws Exception {
        Tenure tenure = tenure(Duration.ofSeconds(30));
        Scheduler s = scheduler("m-read");
        QuartzCoordination.builder(tenure).build().registerListeners(s);
        s.scheduleJob(
                JobBuilder.newJob(ReadingJob.class).withIdentity("reader", "m").build(), onceNow("reader"));
        s.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> seen.size() == 1);
        assertThat(seen.get(0)).startsWith("valid=true epochMatches=true fenced=true");
        assertThat(servers.runStatus("quartz:m:reader", seen.get(0).split("fire=")[1]))
                .isEqualTo("COMPLETED");
    }

    @Test
    void recordSchedulesOff_firesAreStillCoordinated_butNoScheduleIsRecorded() throws Exception {
        Tenure tenure = tenure(Duration.ofSeconds(30));
        Scheduler s = scheduler("m-unrecorded");
        QuartzCoordination.builder(tenure).recordSchedules(false).build().registerListeners(s);
        s.scheduleJob(
                JobBuilder.newJob(ReadingJob.class)
                        .withIdentity("unrecorded", "m")
                        .build(),
                TriggerBuilder.newTrigger()
                        .withIdentity("unrecorded", "m")
                        .startNow()
                        .withSchedule(org.quartz.SimpleScheduleBuilder.repeatSecondlyForever())
                        .build());
        s.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> !seen.isEmpty());
        assertThat(seen.get(0)).startsWith("valid=true epochMatches=true fenced=true");
        assertThat(tenure.scheduledJobs()).as("recordSchedules(false)").isEmpty();

        Tenure recording = tenure(Duration.ofSeconds(30));
        QuartzCoordination.builder(recording).build().checkSchedules(s);
        assertThat(recording.scheduledJobs())
                .as("the default records the same scheduler's job")
                .extracting(dev.tenure.ScheduledJob::jobKey)
                .contains("quartz:m:unrecorded");
    }

    @Test
    void anotherListenerVetoesAfterOurs_fireGivenBack_leasesReleased() throws Exception {
        Tenure tenure = tenure(Duration.ofSeconds(30));
        Scheduler s = scheduler("m-veto");
        QuartzCoordination.builder(tenure).build().registerListeners(s);
        s.getListenerManager().addTriggerListener(new TriggerListenerSupport() {
            @Override
            public String getName() {
                return "vetoes-everything";
            }

            @Override
            public boolean vetoJobExecution(Trigger trigger, JobExecutionContext context) {
                seen.add("claimed=" + JobContext.find().isPresent() + " fire=" + FireKeys.fireKey(context));
                return true;
            }
        });
        s.scheduleJob(
                JobBuilder.newJob(ReadingJob.class).withIdentity("vetoed", "m").build(), onceNow("vetoed"));
        s.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> seen.size() == 1);
        assertThat(seen.get(0)).startsWith("claimed=true");
        String fire = seen.get(0).split("fire=")[1];
        await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                .until(() -> "FAILED".equals(servers.runStatus("quartz:m:vetoed", fire)));
        assertThat(jobIsFree(tenure(Duration.ofSeconds(30)).coordinator(), "quartz:m:vetoed", "probe"))
                .isTrue();
    }

    @Test
    void anotherListenerThrows_quartzAbandonsTheFire_leasesReleasedAnyway() throws Exception {
        Tenure tenure = tenure(Duration.ofSeconds(30));
        Scheduler s = scheduler("m-throw");
        QuartzCoordination.builder(tenure).build().registerListeners(s);
        s.getListenerManager().addTriggerListener(new TriggerListenerSupport() {
            @Override
            public String getName() {
                return "throws";
            }

            @Override
            public boolean vetoJobExecution(Trigger trigger, JobExecutionContext context) {
                seen.add("fire=" + FireKeys.fireKey(context));
                throw new IllegalStateException("a broken listener");
            }
        });
        s.scheduleJob(
                JobBuilder.newJob(ReadingJob.class).withIdentity("thrown", "m").build(), onceNow("thrown"));
        s.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> seen.size() == 1);
        String fire = seen.get(0).split("fire=")[1];
        await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                .until(() -> "FAILED".equals(servers.runStatus("quartz:m:thrown", fire)));
        assertThat(jobIsFree(tenure(Duration.ofSeconds(30)).coordinator(), "quartz:m:thrown", "probe"))
                .isTrue();
    }

    @Test
    void factory_delegateThrows_newJobDoesNotThrow_fireFails_triggerStaysHealthy() throws Exception {
        Tenure tenure = tenure(Duration.ofSeconds(30));
        Scheduler s = scheduler("m-factory");
        s.setJobFactory(QuartzCoordination.builder(tenure).build().jobFactory((bundle, sch) -> {
            throw new SchedulerException("no instance today");
        }));
        s.getListenerManager()
                .addJobListener(
                        new JobListenerSupport() {
                            @Override
                            public String getName() {
                                return "records";
                            }

                            @Override
                            public void jobWasExecuted(JobExecutionContext context, JobExecutionException e) {
                                seen.add(String.valueOf(e));
                            }
                        },
                        EverythingMatcher.allJobs());
        TriggerKey key = TriggerKey.triggerKey("broken", "m");
        s.scheduleJob(
                JobBuilder.newJob(ReadingJob.class).withIdentity("broken", "m").build(),
                TriggerBuilder.newTrigger()
                        .withIdentity(key)
                        .startNow()
                        .withSchedule(SimpleScheduleBuilder.repeatSecondlyForever())
                        .build());
        s.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> seen.size() >= 2);
        assertThat(seen).allMatch(e -> e.contains("could not create an instance") && e.contains("no instance today"));
        assertThat(s.getTriggerState(key)).isEqualTo(Trigger.TriggerState.NORMAL);
    }

    @Test
    void factory_onlyMatchedJobsAreCoordinated() throws Exception {
        Tenure tenure = tenure(Duration.ofSeconds(30));
        Scheduler s = scheduler("m-match");
        s.setJobFactory(QuartzCoordination.builder(tenure)
                .jobs(GroupMatcher.jobGroupEquals("m"))
                .build()
                .jobFactory());
        s.scheduleJob(
                JobBuilder.newJob(ReadingJob.class).withIdentity("in", "m").build(), onceNow("in"));
        s.scheduleJob(
                JobBuilder.newJob(ReadingJob.class).withIdentity("out", "other").build(),
                TriggerBuilder.newTrigger()
                        .withIdentity("out", "other")
                        .startNow()
                        .build());
        s.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> seen.size() == 2);
        assertThat(seen)
                .anyMatch(l -> l.startsWith("valid=true") && l.contains("job=in"))
                .anyMatch(l -> l.startsWith("uncoordinated") && l.contains("job=out"));
    }

    @Test
    void leaseLostMidJob_interruptableJobIsInterrupted() throws Exception {
        Tenure tenure = tenure(Duration.ofMillis(1500));
        Scheduler s = scheduler("m-interrupt");
        s.setJobFactory(QuartzCoordination.builder(tenure).build().jobFactory());
        s.scheduleJob(
                JobBuilder.newJob(SleepingJob.class)
                        .withIdentity("sleeper", "m")
                        .build(),
                onceNow("sleeper"));
        interrupts.set(0);
        s.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> seen.contains("sleeping"));
        // the database lease is the one whose loss stops a job: an operator's force-release ends it
        TenureAdmin.create(servers.db.dataSource()).forceRelease("quartz:m:sleeper", "test", "test");
        await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(() -> interrupts.get() == 1);
        await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(() -> seen.size() == 2);
        assertThat(seen).containsExactly("sleeping", "interrupted validAfterLoss=false");
    }

    @Test
    void valkeyFrozenMidJob_theJobIsNotInterrupted_whileItsDatabaseLeaseHolds() throws Exception {
        Duration ttl = Duration.ofMillis(1500);
        Tenure tenure = tenure(ttl);
        Scheduler s = scheduler("m-no-interrupt");
        s.setJobFactory(QuartzCoordination.builder(tenure).build().jobFactory());
        s.scheduleJob(
                JobBuilder.newJob(SleepingJob.class)
                        .withIdentity("frozen-valkey", "m")
                        .build(),
                onceNow("frozen-valkey"));
        interrupts.set(0);
        s.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> seen.contains("sleeping"));
        servers.valkey.pause();
        try {
            Thread.sleep(ttl.multipliedBy(3).toMillis()); // the Valkey lease runs out locally after one TTL
        } finally {
            servers.valkey.resume();
        }
        assertThat(interrupts)
                .as("interrupts of a job whose database lease holds")
                .hasValue(0);
        assertThat(seen).containsExactly("sleeping");
        s.interrupt(JobKey.jobKey("frozen-valkey", "m"));
        await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(() -> seen.size() == 2);
    }

    @Test
    void refireImmediately_reExecutionIsClaimedAgain_neverRunsUncoordinated() throws Exception {
        Tenure tenure = tenure(Duration.ofSeconds(30));
        for (boolean factory : new boolean[] {false, true}) {
            seen.clear();
            Scheduler s = scheduler("m-refire-" + factory);
            QuartzCoordination coordination = QuartzCoordination.builder(tenure).build();
            if (factory) {
                s.setJobFactory(coordination.jobFactory());
            } else {
                coordination.registerListeners(s);
            }
            String name = "refire-" + factory;
            s.scheduleJob(
                    JobBuilder.newJob(RefiringJob.class).withIdentity(name, "m").build(), onceNow(name));
            s.start();
            await().atMost(Timing.scaled(Duration.ofSeconds(20))).until(() -> seen.size() == 2);
            s.shutdown(true);
            long first = Long.parseLong(seen.get(0).split(" ")[1]);
            assertThat(seen.get(0)).as("factory=%s", factory).startsWith("attempt1 ");
            assertThat(seen.get(1))
                    .as("factory=%s", factory)
                    .startsWith("attempt2 ")
                    .endsWith(" valid=true");
            assertThat(Long.parseLong(seen.get(1).split(" ")[1])).isGreaterThan(first);
            String fire = seen.get(0).split(" ")[2];
            assertThat(servers.runStatus("quartz:m:" + name, fire)).isEqualTo("COMPLETED");
        }
        scheduler = null;
    }

    /** Asks Quartz to re-execute it once at once; reports the epoch and lease of each execution. */
    public static final class RefiringJob implements Job {
        @Override
        public void execute(JobExecutionContext context) throws JobExecutionException {
            JobContext run = JobContext.current();
            Lease lease = QuartzCoordination.leaseOf(context).orElseThrow();
            if (context.getRefireCount() == 0) {
                seen.add("attempt1 " + run.epoch() + " " + run.fireKey());
                throw new JobExecutionException("try again", true);
            }
            seen.add("attempt2 " + run.epoch() + " " + run.fireKey() + " valid=" + lease.isValid());
        }
    }

    @Test
    void recoveringFire_ownerStillHoldsTheJob_waitsForItsLeaseInsteadOfSkipping() throws Exception {
        String original = "2026-12-02T09:00:00Z";
        ClaimedRun frozenOwner = ((RunClaim.Claimed) tenure(Duration.ofSeconds(30))
                        .coordinator()
                        .begin("quartz:m:recov", original, RunPolicy.skipFire()))
                .run();
        FireGuard guard = new FireGuard(QuartzCoordination.builder(tenure(Duration.ofSeconds(30)))
                .recoveryPolicy(RunPolicy.waitUpTo(Duration.ofSeconds(20)))
                .build());

        assertThat(guard.enter(fire(false, original)))
                .as("a normal fire of a held job is skipped at once")
                .isEqualTo(FireGuard.Entry.SKIP);
        JobExecutionContext recovery = fire(true, original);
        CompletableFuture<FireGuard.Entry> entry = CompletableFuture.supplyAsync(() -> guard.enter(recovery));
        Thread.sleep(1000);
        assertThat(entry).as("the recovery fire waits for the owner's lease").isNotDone();
        frozenOwner.close(); // its lease ends (here released; a frozen owner's would expire)

        assertThat(entry.get(Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS))
                .isEqualTo(FireGuard.Entry.RUN);
        assertThat(QuartzCoordination.contextOf(recovery).orElseThrow().fireKey())
                .isEqualTo(original);
        guard.exit(recovery, null);
        assertThat(servers.runStatus("quartz:m:recov", original)).isEqualTo("COMPLETED");
    }

    private static JobExecutionContext fire(boolean recovering, String originalFireTime) {
        JobDetail job =
                JobBuilder.newJob(ReadingJob.class).withIdentity("recov", "m").build();
        long millis = Instant.parse(originalFireTime).toEpochMilli();
        OperableTrigger trigger = (OperableTrigger) TriggerBuilder.newTrigger()
                .withIdentity("recover_n1", "RECOVERING_JOBS")
                .usingJobData(
                        Scheduler.FAILED_JOB_ORIGINAL_TRIGGER_SCHEDULED_FIRETIME_IN_MILLISECONDS, Long.toString(millis))
                .build();
        Date scheduled = recovering ? new Date() : new Date(millis);
        return new JobExecutionContextImpl(
                null,
                new TriggerFiredBundle(job, trigger, null, recovering, new Date(), scheduled, null, null),
                new ReadingJob());
    }

    /** Reads its run from the context and makes one fenced (empty) transaction. */
    public static final class ReadingJob implements Job {
        @Override
        public void execute(JobExecutionContext context) throws JobExecutionException {
            String job = "job=" + context.getJobDetail().getKey().getName();
            JobContext run = QuartzCoordination.contextOf(context).orElse(null);
            if (run == null) {
                seen.add("uncoordinated " + job);
                return;
            }
            Lease lease = QuartzCoordination.leaseOf(context).orElseThrow();
            boolean fenced;
            try (Connection c = QuartzNode.dataSource.getConnection()) {
                c.setAutoCommit(false);
                run.fence(c);
                c.commit();
                fenced = true;
            } catch (Exception e) {
                fenced = false;
            }
            seen.add("valid=" + lease.isValid() + " epochMatches="
                    + (lease.fencingToken().orElse(-1) == run.epoch()) + " fenced=" + fenced + " " + job + " fire="
                    + run.fireKey());
        }
    }

    /** Sleeps until interrupted; reports whether the lease was still valid then. */
    public static final class SleepingJob implements InterruptableJob {
        private volatile Thread runner;

        @Override
        public void execute(JobExecutionContext context) {
            runner = Thread.currentThread();
            seen.add("sleeping");
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                seen.add("interrupted validAfterLoss="
                        + QuartzCoordination.contextOf(context).orElseThrow().isLeaseValid());
            }
        }

        @Override
        public void interrupt() {
            interrupts.incrementAndGet();
            runner.interrupt();
        }
    }
}
