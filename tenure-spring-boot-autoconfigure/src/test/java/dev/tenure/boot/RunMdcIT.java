package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.tenure.RunMdc;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.boot.app.LoggingApp;
import dev.tenure.boot.app.TestApps;
import dev.tenure.boot.logs.LogLines;
import dev.tenure.quartz.QuartzCoordination;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobExecutionContext;
import org.quartz.Scheduler;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.impl.matchers.GroupMatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Log lines inside a coordinated run carry the run's MDC keys ({@link RunMdc}), as Logback sees them, and none of them
 * reach the next task on the same pooled thread, while the application's own MDC keys survive: a plain
 * {@code JobCoordinator} run, a Quartz fire (both plug-in styles) and a Boot {@code @Scheduled @Coordinated} method, on
 * a real Postgres (and Valkey for the Boot application).
 */
class RunMdcIT {

    private static final Logger LOG = LoggerFactory.getLogger("mdc.test.work");
    private static final String APP_KEY = "app.tenant";

    static BootServers servers;
    static Tenure tenure;

    @BeforeAll
    static void start() {
        servers = BootServers.start(RunMdcIT.class);
        tenure = Tenure.builder().dataSource(servers.db().dataSource()).build();
    }

    @AfterAll
    static void stop() {
        if (tenure != null) {
            tenure.close();
        }
        servers.close();
    }

    @Test
    void jobCoordinatorRun_linesCarryTheRun_andTheNextTaskOnThePooledThreadDoesNot() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (LogLines lines = LogLines.capture(Level.INFO, "mdc.test")) {
            pool.submit(() -> MDC.put(APP_KEY, "acme")).get(); // the application's own key, set before the run
            RunOutcome<Object> outer = pool.submit(() -> tenure.coordinator()
                            .<Object>run("mdc-plain", "fire-1", RunPolicy.skipFire(), run -> {
                                LOG.info("inside the run");
                                RunOutcome<Object> inner = tenure.coordinator()
                                        .run("mdc-nested", "fire-9", RunPolicy.skipFire(), nested -> {
                                            LOG.info("inside the nested run");
                                            return null;
                                        });
                                assertThat(inner.status()).isEqualTo(RunOutcome.Status.EXECUTED);
                                LOG.info("back in the run");
                                return null;
                            }))
                    .get();
            pool.submit(() -> LOG.info("the next task")).get();

            assertThat(outer.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            Map<String, String> run = Map.of(
                    RunMdc.JOB,
                    "mdc-plain",
                    RunMdc.FIRE,
                    "fire-1",
                    RunMdc.EPOCH,
                    Long.toString(outer.epoch()),
                    RunMdc.OWNER,
                    outer.owner(),
                    RunMdc.NODE,
                    tenure.nodeName(),
                    APP_KEY,
                    "acme");
            assertThat(lines.mdcOf("inside the run")).containsExactly(run);
            assertThat(lines.mdcOf("inside the nested run"))
                    .singleElement()
                    .satisfies(m -> assertThat(m)
                            .containsEntry(RunMdc.JOB, "mdc-nested")
                            .containsEntry(RunMdc.FIRE, "fire-9")
                            .containsEntry(APP_KEY, "acme"));
            assertThat(lines.mdcOf("back in the run"))
                    .as("the nested run restored the outer run's keys")
                    .containsExactly(run);
            assertThat(lines.mdcOf("the next task"))
                    .as("nothing of the run leaks to the next task on the thread")
                    .containsExactly(Map.of(APP_KEY, "acme"));
        } finally {
            pool.shutdownNow();
        }
    }

    /** A Quartz job that logs, and sets an application key of its own inside the fire. */
    public static class LoggingJob implements Job {
        @Override
        public void execute(JobExecutionContext context) {
            if (context.getJobDetail().getKey().getGroup().equals("coordinated")) {
                MDC.put(APP_KEY, "acme");
            }
            LOG.info("quartz job " + context.getJobDetail().getKey().getGroup());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"listeners", "jobFactory"})
    void quartzFire_linesOfTheJobAndOfTenureCarryTheRun_andTheNextJobOnTheWorkerThreadDoesNot(String style)
            throws Exception {
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", "mdc-" + style);
        p.setProperty("org.quartz.threadPool.threadCount", "1"); // both jobs on one worker thread
        p.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
        Scheduler scheduler = new StdSchedulerFactory(p).getScheduler();
        QuartzCoordination coordination = QuartzCoordination.builder(tenure)
                .jobs(GroupMatcher.jobGroupEquals("coordinated"))
                .build();
        if (style.equals("listeners")) {
            coordination.registerListeners(scheduler);
        } else {
            scheduler.setJobFactory(coordination.jobFactory());
        }
        try (LogLines lines = LogLines.capture(Level.DEBUG, "mdc.test", "dev.tenure.quartz")) {
            scheduler.start();
            scheduler.scheduleJob(
                    JobBuilder.newJob(LoggingJob.class)
                            .withIdentity("settle-" + style, "coordinated")
                            .build(),
                    TriggerBuilder.newTrigger().startNow().build());
            await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> lines.mdcOf("fire ").size() == 1);
            scheduler.scheduleJob(
                    JobBuilder.newJob(LoggingJob.class)
                            .withIdentity("cleanup-" + style, "plain")
                            .build(),
                    TriggerBuilder.newTrigger().startNow().build());
            await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> lines.mdcOf("quartz job plain").size() == 1);

            Map<String, String> inside = lines.mdcOf("quartz job coordinated").get(0);
            assertThat(inside)
                    .containsEntry(RunMdc.JOB, "quartz:coordinated:settle-" + style)
                    .containsKeys(RunMdc.FIRE, RunMdc.EPOCH, RunMdc.OWNER)
                    .containsEntry(APP_KEY, "acme")
                    .containsEntry(RunMdc.NODE, tenure.nodeName());
            assertThat(Long.parseLong(inside.get(RunMdc.EPOCH))).isPositive();
            assertThat(lines.mdcOf("fire "))
                    .as("Tenure's own line about the fire's outcome carries the same run")
                    .containsExactly(inside);
            assertThat(lines.mdcOf("quartz job plain"))
                    .as("the next job on the worker thread: no Tenure key, the " + "application's own key survives")
                    .containsExactly(Map.of(APP_KEY, "acme"));
        } finally {
            scheduler.shutdown(true);
        }
    }

    @Test
    void scheduledCoordinatedMethod_linesCarryTheRun_andTheNextScheduledTaskDoesNot_norDoesACatchUpLeak()
            throws Exception {
        try (ConfigurableApplicationContext app =
                        TestApps.start(LoggingApp.class, servers, "tenure.node-name=logged-1");
                LogLines lines = LogLines.capture(Level.INFO, "mdc.test")) {
            await().atMost(Timing.scaled(Duration.ofSeconds(15)))
                    .until(() -> lines.mdcOf("coordinated method").size() >= 2
                            && lines.mdcOf("plain method").size() >= 2);
            List<Map<String, String>> inside = lines.mdcOf("coordinated method");
            assertThat(inside)
                    .allSatisfy(m -> assertThat(m)
                            .containsEntry(RunMdc.JOB, LoggingApp.JOB)
                            .containsKeys(RunMdc.FIRE, RunMdc.EPOCH, RunMdc.OWNER)
                            .containsEntry(RunMdc.NODE, "logged-1"));
            assertThat(lines.mdcOf("listener told of EXECUTED"))
                    .as("a line about the outcome, after the run")
                    .isNotEmpty()
                    .allSatisfy(m -> assertThat(m)
                            .containsEntry(RunMdc.JOB, LoggingApp.JOB)
                            .containsKeys(RunMdc.FIRE, RunMdc.EPOCH, RunMdc.OWNER)
                            .containsEntry(RunMdc.NODE, "logged-1"));
            assertThat(lines.mdcOf("plain method"))
                    .as("the other task on the scheduler's one thread")
                    .allSatisfy(m -> assertThat(m.keySet()).noneMatch(k -> k.startsWith("tenure.")));
            assertThat(LoggingApp.threads())
                    .as("both methods ran on one scheduler thread")
                    .hasSize(1);

            // a catch-up, as the sweeper starts one (CoordinatedSchedules), on a pooled thread of its own
            String missed = "2026-12-04T00:00:00Z";
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                pool.submit(() -> MDC.put(APP_KEY, "acme")).get();
                pool.submit(() -> {
                            CoordinatedInterceptor.catchUp(
                                    app.getBean(LoggingApp.Methods.class),
                                    LoggingApp.Methods.class.getMethod("settle"),
                                    missed);
                            return null;
                        })
                        .get();
                pool.submit(() -> LOG.info("after the catch-up")).get();
            } finally {
                pool.shutdownNow();
            }
            assertThat(lines.mdcOf("coordinated method"))
                    .as("the catch-up's line")
                    .filteredOn(m -> missed.equals(m.get(RunMdc.FIRE)))
                    .singleElement()
                    .satisfies(m -> assertThat(m)
                            .containsEntry(RunMdc.JOB, LoggingApp.JOB)
                            .containsKeys(RunMdc.EPOCH, RunMdc.OWNER)
                            .containsEntry(APP_KEY, "acme"));
            assertThat(lines.mdcOf("after the catch-up")).containsExactly(Map.of(APP_KEY, "acme"));
        }
    }
}
