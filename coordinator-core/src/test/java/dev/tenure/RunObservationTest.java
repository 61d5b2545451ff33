package dev.tenure;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.integration.RunClaim;
import dev.tenure.observation.DefaultTenureRunObservationConvention;
import dev.tenure.observation.TenureRunObservationContext;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A coordinated run as Micrometer observations (in memory): tenure.run with its claim, work and completion. */
class RunObservationTest {

    private final TestObservationRegistry registry = TestObservationRegistry.create();
    /** Every context started, in order. */
    private final List<Observation.Context> started = new java.util.concurrent.CopyOnWriteArrayList<>();

    RunObservationTest() {
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
    }

    private Tenure tenure(Object convention) {
        Tenure.Builder b = Tenure.builder().inMemory().nodeName("web-1").observationRegistry(registry);
        if (convention != null) {
            b.observationConvention(convention);
        }
        return b.build();
    }

    @Test
    void run_isObservedAsRunWithClaimWorkAndComplete_underTheCurrentObservation() {
        try (Tenure tenure = tenure(null)) {
            Observation parent = Observation.start("tasks.scheduled.execution", registry);
            List<String> seen = new ArrayList<>();
            RunOutcome<String> o;
            try (Observation.Scope s = parent.openScope()) {
                o = tenure.coordinator().run("settle", "2026-12-04T10:00Z", RunPolicy.skipFire(), ctx -> {
                    seen.add(registry.getCurrentObservation().getContextView().getName());
                    return "done";
                });
            }
            parent.stop();
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(seen).containsExactly("tenure.run.work");
            assertThat(registry)
                    .hasNumberOfObservationsEqualTo(5)
                    .hasObservationWithNameEqualTo("tenure.run")
                    .that()
                    .hasParentObservationEqualTo(parent)
                    .hasLowCardinalityKeyValue("tenure.job", "settle")
                    .hasLowCardinalityKeyValue("tenure.outcome", "EXECUTED")
                    .hasLowCardinalityKeyValue("tenure.mode", "DATABASE")
                    .hasLowCardinalityKeyValue("tenure.integration", "coordinator")
                    .hasLowCardinalityKeyValue("tenure.fallback", "false")
                    .hasHighCardinalityKeyValue("tenure.fire", "2026-12-04T10:00Z")
                    .hasHighCardinalityKeyValue("tenure.epoch", Long.toString(o.epoch()))
                    .hasHighCardinalityKeyValue("tenure.owner", o.owner())
                    .hasHighCardinalityKeyValue("tenure.node", "web-1")
                    .hasBeenStarted()
                    .hasBeenStopped();
            Observation.Context run = context("tenure.run");
            for (String phase : List.of("tenure.run.claim", "tenure.run.work", "tenure.run.complete")) {
                assertThat(registry)
                        .hasObservationWithNameEqualTo(phase)
                        .that()
                        .hasBeenStopped()
                        .hasLowCardinalityKeyValue("tenure.job", "settle");
                assertThat(context(phase).getParentObservation().getContextView())
                        .isSameAs(run);
            }
            assertThat(registry)
                    .hasObservationWithNameEqualTo("tenure.run.claim")
                    .that()
                    .hasLowCardinalityKeyValue("tenure.outcome", "CLAIMED");
            assertThat(registry)
                    .hasObservationWithNameEqualTo("tenure.run.work")
                    .that()
                    .hasLowCardinalityKeyValue("tenure.outcome", "SUCCEEDED");
            assertThat(registry)
                    .hasObservationWithNameEqualTo("tenure.run.complete")
                    .that()
                    .hasLowCardinalityKeyValue("tenure.outcome", "EXECUTED");
            assertThat(registry).doesNotHaveAnyRemainingCurrentObservation();
        }
    }

    @Test
    void failedWork_isTheErrorOfWorkAndRun() {
        try (Tenure tenure = tenure(null)) {
            IllegalStateException boom = new IllegalStateException("boom");
            RunOutcome<Object> o = tenure.coordinator().run("settle", "f1", RunPolicy.skipFire(), ctx -> {
                throw boom;
            });
            assertThat(o.status()).isEqualTo(RunOutcome.Status.FAILED);
            assertThat(registry)
                    .hasObservationWithNameEqualTo("tenure.run")
                    .that()
                    .hasError(boom)
                    .hasLowCardinalityKeyValue("tenure.outcome", "FAILED");
            assertThat(registry)
                    .hasObservationWithNameEqualTo("tenure.run.work")
                    .that()
                    .hasError(boom)
                    .hasLowCardinalityKeyValue("tenure.outcome", "FAILED");
        }
    }

    @Test
    void completedFire_isARunWithItsClaimOnly() {
        try (Tenure tenure = tenure(null)) {
            tenure.coordinator().run("settle", "f1", RunPolicy.skipFire(), ctx -> null);
            registry.clear();
            RunOutcome<Object> again = tenure.coordinator().run("settle", "f1", RunPolicy.skipFire(), ctx -> null);
            assertThat(again.status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
            assertThat(registry)
                    .hasNumberOfObservationsEqualTo(2)
                    .hasObservationWithNameEqualTo("tenure.run")
                    .that()
                    .hasLowCardinalityKeyValue("tenure.outcome", "SKIPPED_ALREADY_DONE")
                    .doesNotHaveHighCardinalityKeyValueWithKey("tenure.epoch")
                    .hasBeenStopped();
            assertThat(registry)
                    .hasObservationWithNameEqualTo("tenure.run.claim")
                    .that()
                    .hasLowCardinalityKeyValue("tenure.outcome", "SKIPPED_ALREADY_DONE")
                    .hasBeenStopped();
        }
    }

    @Test
    void beginAndFinish_onTwoThreads_endEveryObservation() throws Exception {
        try (Tenure tenure = tenure(null)) {
            RunClaim claim = tenure.coordinator()
                    .begin(
                            "settle",
                            "f1",
                            RunPolicy.skipFire(),
                            tenure.coordinator().leaseOptions(),
                            "quartz");
            ActiveRun run = (ActiveRun) ((RunClaim.Claimed) claim).run();
            assertThat(registry.getCurrentObservation()).isNull();
            Thread t = new Thread(() -> run.finish(null, null));
            t.start();
            t.join();
            assertThat(registry).hasNumberOfObservationsEqualTo(4).doesNotHaveAnyRemainingCurrentObservation();
            assertThat(registry)
                    .hasObservationWithNameEqualTo("tenure.run")
                    .that()
                    .hasBeenStopped()
                    .hasLowCardinalityKeyValue("tenure.integration", "quartz")
                    .hasLowCardinalityKeyValue("tenure.outcome", "EXECUTED");
        }
    }

    @Test
    void aConventionOfTheUsersOwn_makesTheKeyValues() {
        DefaultTenureRunObservationConvention mine = new DefaultTenureRunObservationConvention() {
            @Override
            public KeyValues getLowCardinalityKeyValues(TenureRunObservationContext context) {
                return super.getLowCardinalityKeyValues(context).and("tenant", "acme");
            }
        };
        try (Tenure tenure = tenure(mine)) {
            tenure.coordinator().run("settle", "f1", RunPolicy.skipFire(), ctx -> null);
            assertThat(registry)
                    .hasObservationWithNameEqualTo("tenure.run")
                    .that()
                    .hasLowCardinalityKeyValue("tenant", "acme");
        }
    }

    @Test
    void withoutARegistry_aRunCreatesNoObservation() {
        try (Tenure tenure = Tenure.inMemory()) {
            Observation parent = Observation.start("host", registry);
            try (Observation.Scope s = parent.openScope()) {
                tenure.coordinator().run("settle", "f1", RunPolicy.skipFire(), ctx -> null);
            }
            parent.stop();
            assertThat(registry).hasNumberOfObservationsEqualTo(1);
        }
    }

    private Observation.Context context(String name) {
        return started.stream()
                .filter(c -> name.equals(c.getName()))
                .findFirst()
                .orElseThrow();
    }
}
