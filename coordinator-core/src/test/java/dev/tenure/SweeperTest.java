package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.FireState;
import dev.tenure.spi.ScheduleLedger.FireStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The sweeper's decisions per job, as pure logic: which overdue fires are caught up, recorded MISSED or left open. */
class SweeperTest {

    private static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");
    private static final Schedule EVERY_SECOND = Schedule.fixedRate(Duration.ofSeconds(1));

    private static ScheduledJob job(MissedFirePolicy policy) {
        return ScheduledJob.of("job", EVERY_SECOND, fire -> {}).withPolicy(policy);
    }

    private static List<DueFire> fires(int n) {
        return Sweeper.dueBetween(job(MissedFirePolicy.catchUp()), NOW.minusSeconds(n), NOW);
    }

    @Test
    void dueBetween_isEverySlotAfterTheStartUpToTheEnd_oldestFirst() {
        List<DueFire> f = fires(3);
        assertThat(f)
                .extracting(DueFire::fireKey)
                .containsExactly("2026-12-04T11:59:58Z", "2026-12-04T11:59:59Z", "2026-12-04T12:00:00Z");
        assertThat(f)
                .allSatisfy(d -> assertThat(d.fireKey()).isEqualTo(d.dueAt().toString()));
    }

    @Test
    void dueBetween_refusesAScheduleThatDoesNotMoveForward() {
        Schedule stuck = new Schedule() {
            @Override
            public String kind() {
                return "stuck";
            }

            @Override
            public String expression() {
                return "-";
            }

            @Override
            public Optional<Instant> nextAfter(Instant after) {
                return Optional.of(after);
            }
        };
        ScheduledJob j = ScheduledJob.of("stuck", stuck, fire -> {});
        assertThatThrownBy(() -> Sweeper.dueBetween(j, NOW.minusSeconds(5), NOW))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("does not move forward");
    }

    @Test
    void catchUp_theNewestUpToTheBound_theOlderOnesMissed() {
        List<DueFire> f = fires(5);
        var plan = Sweeper.plan(job(MissedFirePolicy.catchUp().withMaxCatchUps(3)), f, Map.of(), NOW);
        assertThat(plan.catchUps()).containsExactlyElementsOf(f.subList(2, 5));
        assertThat(plan.missed()).extracting(m -> m.fire()).containsExactlyElementsOf(f.subList(0, 2));
        assertThat(plan.missed().get(0).reason())
                .isEqualTo("no node ran it; not caught up: only the newest 3 overdue " + "fires are");
    }

    @Test
    void catchUp_neverOlderThanMaxAge() {
        List<DueFire> f = fires(5);
        var policy =
                MissedFirePolicy.catchUp().withGrace(Duration.ofMillis(100)).withMaxAge(Duration.ofMillis(2500));
        var plan = Sweeper.plan(job(policy), f, Map.of(), NOW);
        // fires 11:59:56 .. 12:00:00; 12:00:00 minus 2.5 s is 11:59:57.5, so 11:59:56 and 11:59:57 are too old
        assertThat(plan.catchUps()).containsExactlyElementsOf(f.subList(2, 5));
        assertThat(plan.missed()).extracting(m -> m.fire()).containsExactlyElementsOf(f.subList(0, 2));
        assertThat(plan.missed().get(0).reason()).endsWith("older than the policy's max age PT2.5S");
    }

    @Test
    void skip_recordsEveryOverdueFireMissed_alertOnly_leavesThemOpenUntilMaxAge() {
        List<DueFire> f = fires(4);
        var skip = Sweeper.plan(job(MissedFirePolicy.skip()), f, Map.of(), NOW);
        assertThat(skip.missed()).hasSize(4);
        assertThat(skip.catchUps()).isEmpty();
        var alert = Sweeper.plan(
                job(MissedFirePolicy.alertOnly()
                        .withGrace(Duration.ofMillis(100))
                        .withMaxAge(Duration.ofMillis(2500))),
                f,
                Map.of(),
                NOW);
        assertThat(alert.missed()).extracting(m -> m.fire()).containsExactly(f.get(0)); // 11:59:57, older than 2.5 s
        assertThat(alert.catchUps()).isEmpty();
        assertThat(alert.overdue()).hasSize(4);
    }

    @Test
    void settledAndLiveRunsAreNotOverdue_deadHoldersAre_withTheirReason() {
        List<DueFire> f = fires(6);
        Map<DueFire, FireStatus> states = new HashMap<>();
        states.put(f.get(0), new FireStatus(f.get(0), FireState.COMPLETED, null));
        states.put(f.get(1), new FireStatus(f.get(1), FireState.FAILED, "boom"));
        states.put(f.get(2), new FireStatus(f.get(2), FireState.RUNNING, null));
        states.put(f.get(3), new FireStatus(f.get(3), FireState.RUNNING_LEASE_ENDED, null));
        states.put(
                f.get(4), new FireStatus(f.get(4), FireState.ABANDONED, "run of node-a cut short: node-a shut down"));
        states.put(f.get(5), new FireStatus(f.get(5), FireState.REJECTED_STALE, "the lease of x ended"));
        var plan = Sweeper.plan(job(MissedFirePolicy.skip()), f, states, NOW);
        assertThat(plan.overdue()).containsExactlyElementsOf(f.subList(3, 6));
        assertThat(plan.reasonCode())
                .containsEntry(f.get(3), "holder_lost")
                .containsEntry(f.get(4), "shutdown")
                .containsEntry(f.get(5), "rejected_stale");
        assertThat(plan.reasonText().get(f.get(5)))
                .startsWith("its holder lost its lease (paused or cut off) and was " + "refused: the lease of x ended");
    }

    @Test
    void policy_refusesBoundsThatCannotWork() {
        assertThatThrownBy(() -> MissedFirePolicy.catchUp().withMaxCatchUps(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxCatchUps");
        assertThatThrownBy(() -> MissedFirePolicy.catchUp().withGrace(Duration.ofHours(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be longer than grace");
        assertThatThrownBy(() -> Schedule.fixedRate(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
    }
}
