package dev.tenure.quartz;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.observation.TenureRunObservationContext;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobExecutionContext;
import org.quartz.Scheduler;
import org.quartz.TriggerBuilder;
import org.quartz.impl.matchers.GroupMatcher;

/**
 * A Quartz fire (both plug-in styles) is observed as a plain {@code JobCoordinator} run is: the same observations
 * ({@code tenure.run} with its claim, work and completion as children), the same key names and the same values but
 * for the job and the integration; and the job's own observation nests under {@code tenure.run.work}. Real Postgres.
 */
class QuartzObservationsIT {

    static final TestObservationRegistry registry = TestObservationRegistry.create();
    static final List<Observation.Context> started = new CopyOnWriteArrayList<>();
    static PostgresDatabase db;
    static Tenure tenure;

    @BeforeAll
    static void start() {
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStart(Observation.Context context) {
                started.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        db = PostgresDatabases.forClass(QuartzObservationsIT.class);
        tenure = Tenure.builder()
                .dataSource(db.dataSource())
                .nodeName("quartz-1")
                .observationRegistry(registry)
                .build();
    }

    @AfterAll
    static void stop() {
        if (tenure != null) {
            tenure.close();
        }
        if (db != null) {
            db.close();
        }
    }

    /** A job that makes an observation of its own, in the registry the fire's observations go to. */
    public static class ObservingJob implements Job {
        @Override
        public void execute(JobExecutionContext context) {
            Observation.createNotStarted("app.job.step", registry).observe(() -> {});
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"listeners", "jobFactory"})
    void quartzFire_isObservedAsAPlainCoordinatorRunIs(String style) throws Exception {
        RunOutcome<Object> plain = tenure.coordinator().run("plain-" + style, "fire-1", RunPolicy.skipFire(), ctx -> {
            Observation.createNotStarted("app.job.step", registry).observe(() -> {});
            return null;
        });
        assertThat(plain.status()).isEqualTo(RunOutcome.Status.EXECUTED);

        Scheduler scheduler = QuartzServers.ramScheduler("observed-" + style);
        QuartzCoordination coordination = QuartzCoordination.builder(tenure)
                .jobs(GroupMatcher.jobGroupEquals("coordinated"))
                .build();
        if (style.equals("listeners")) {
            coordination.registerListeners(scheduler);
        } else {
            scheduler.setJobFactory(coordination.jobFactory());
        }
        String quartzJob = "quartz:coordinated:settle-" + style;
        try {
            scheduler.start();
            scheduler.scheduleJob(
                    JobBuilder.newJob(ObservingJob.class)
                            .withIdentity("settle-" + style, "coordinated")
                            .build(),
                    TriggerBuilder.newTrigger().startNow().build());
            await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> run(quartzJob) != null
                            && !run(quartzJob)
                                    .getLowCardinalityKeyValue("tenure.outcome")
                                    .getValue()
                                    .equals("UNKNOWN"));
        } finally {
            scheduler.shutdown(true);
        }

        Map<String, String> plainTree = tree("plain-" + style);
        Map<String, String> quartzTree = tree(quartzJob);
        assertThat(plainTree)
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        "tenure.run",
                        "-",
                        "tenure.run.claim",
                        "tenure.run",
                        "tenure.run.work",
                        "tenure.run",
                        "tenure.run.complete",
                        "tenure.run",
                        "app.job.step",
                        "tenure.run.work"));
        assertThat(quartzTree).isEqualTo(plainTree);
        for (String name : List.of("tenure.run", "tenure.run.claim", "tenure.run.work", "tenure.run.complete")) {
            assertThat(keys(quartzJob, name)).as(name).isEqualTo(keys("plain-" + style, name));
            assertThat(lowValues(quartzJob, name)).as(name).isEqualTo(lowValues("plain-" + style, name));
        }
        Observation.Context q = run(quartzJob);
        assertThat(q.getLowCardinalityKeyValue("tenure.integration").getValue()).isEqualTo("quartz");
        assertThat(run("plain-" + style)
                        .getLowCardinalityKeyValue("tenure.integration")
                        .getValue())
                .isEqualTo("coordinator");
        assertThat(q.getLowCardinalityKeyValue("tenure.outcome").getValue()).isEqualTo("EXECUTED");
        assertThat(q.getHighCardinalityKeyValue("tenure.node").getValue()).isEqualTo("quartz-1");
        assertThat(Long.parseLong(q.getHighCardinalityKeyValue("tenure.epoch").getValue()))
                .isPositive();
        assertThat(registry).doesNotHaveAnyRemainingCurrentObservation();
    }

    /** The observations of {@code job}'s run, by name: the name of each one's parent ("-" for the run itself). */
    private static Map<String, String> tree(String job) {
        Observation.Context run = run(job);
        Map<String, String> tree = new TreeMap<>();
        tree.put("tenure.run", "-");
        for (Observation.Context c : started) {
            Observation.Context parent = c.getParentObservation() == null
                    ? null
                    : (Observation.Context) c.getParentObservation().getContextView();
            for (Observation.Context p = parent;
                    p != null;
                    p = p.getParentObservation() == null
                            ? null
                            : (Observation.Context) p.getParentObservation().getContextView()) {
                if (p == run) {
                    tree.put(c.getName(), parent.getName());
                    break;
                }
            }
        }
        return tree;
    }

    private static Observation.Context run(String job) {
        return started.stream()
                .filter(c -> c instanceof TenureRunObservationContext t
                        && t.jobKey().equals(job)
                        && c.getName().equals("tenure.run"))
                .findFirst()
                .orElse(null);
    }

    private static Observation.Context phase(String job, String name) {
        return started.stream()
                .filter(c -> c instanceof TenureRunObservationContext t
                        && t.jobKey().equals(job)
                        && c.getName().equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static List<String> keys(String job, String name) {
        Observation.Context c = phase(job, name);
        return java.util.stream.Stream.concat(
                        c.getLowCardinalityKeyValues().stream(), c.getHighCardinalityKeyValues().stream())
                .map(KeyValue::getKey)
                .sorted()
                .toList();
    }

    /** The low-cardinality values but the job's and the integration's. */
    private static Map<String, String> lowValues(String job, String name) {
        return phase(job, name).getLowCardinalityKeyValues().stream()
                .filter(kv -> !kv.getKey().equals("tenure.job") && !kv.getKey().equals("tenure.integration"))
                .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue, (a, b) -> a, TreeMap::new));
    }
}
