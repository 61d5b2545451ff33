package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.FireState;
import dev.tenure.spi.ScheduleLedger.Missed;
import dev.tenure.spi.ScheduleLedger.RunState;
import dev.tenure.spi.ScheduleLedger.Summary;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The sweeper's decisions per job, as pure logic: which overdue fires are caught up, recorded MISSED or left open. */
class FirePlanTest {

    private static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");
    private static final Schedule EVERY_SECOND = Schedule.fixedRate(Duration.ofSeconds(1));

    private static List<DueFire> fires(int n) {
        return FireWalk.walk(
                        "job",
                        List.of(new FireWalk.Segment(1, EVERY_SECOND, null, null)),
                        List.of(),
                        NOW.minusSeconds(n),
                        NOW,
                        FireWalk.MAX_STEPS)
                .fires();
    }

    private static FirePlan plan(MissedFirePolicy policy, List<DueFire> f, Map<String, RunState> states) {
        return FirePlan.of("job", policy, f, states, NOW, false);
    }

    @Test
    void catchUp_theNewestUpToTheBound_theOlderOnesMissed() {
        List<DueFire> f = fires(5);
        var plan = plan(MissedFirePolicy.catchUp().withMaxCatchUps(3), f, Map.of());
        assertThat(plan.catchUps()).containsExactlyElementsOf(f.subList(2, 5));
        assertThat(plan.rows()).extracting(Missed::fire).containsExactlyElementsOf(f.subList(0, 2));
        assertThat(plan.rows().get(0).reason())
                .isEqualTo("no node ran it; not caught up: only the newest 3 overdue fires are");
    }

    @Test
    void catchUp_neverOlderThanMaxAge() {
        List<DueFire> f = fires(5);
        var policy =
                MissedFirePolicy.catchUp().withGrace(Duration.ofMillis(100)).withMaxAge(Duration.ofMillis(2500));
        var plan = plan(policy, f, Map.of());
        // fires 11:59:56 .. 12:00:00; 12:00:00 minus 2.5 s is 11:59:57.5, so 11:59:56 and 11:59:57 are too old
        assertThat(plan.catchUps()).containsExactlyElementsOf(f.subList(2, 5));
        assertThat(plan.rows()).extracting(Missed::fire).containsExactlyElementsOf(f.subList(0, 2));
        assertThat(plan.rows().get(0).reason()).endsWith("older than the policy's max age PT2.5S");
    }

    @Test
    void catchUp_ofACutWalk_runsNone_theNewestComeLater() {
        List<DueFire> f = fires(5);
        var plan = FirePlan.of("job", MissedFirePolicy.catchUp(), f, Map.of(), NOW, true);
        assertThat(plan.catchUps()).isEmpty();
        assertThat(plan.rows()).hasSize(5);
    }

    @Test
    void skip_recordsEveryOverdueFireMissed_alertOnly_leavesThemOpenUntilMaxAge() {
        List<DueFire> f = fires(4);
        var skip = plan(MissedFirePolicy.skip(), f, Map.of());
        assertThat(skip.rows()).hasSize(4);
        assertThat(skip.catchUps()).isEmpty();
        var alert = plan(
                MissedFirePolicy.alertOnly().withGrace(Duration.ofMillis(100)).withMaxAge(Duration.ofMillis(2500)),
                f,
                Map.of());
        assertThat(alert.rows()).extracting(Missed::fire).containsExactly(f.get(0)); // 11:59:57, older than 2.5 s
        assertThat(alert.catchUps()).isEmpty();
        assertThat(alert.open()).hasSize(3);
    }

    @Test
    void settledAndLiveRunsAreNotOverdue_deadHoldersAre_withTheirReason() {
        List<DueFire> f = fires(6);
        Map<String, RunState> states = new HashMap<>();
        states.put(f.get(0).fireKey(), new RunState(f.get(0).fireKey(), FireState.COMPLETED, null));
        states.put(f.get(1).fireKey(), new RunState(f.get(1).fireKey(), FireState.FAILED, "boom"));
        states.put(f.get(2).fireKey(), new RunState(f.get(2).fireKey(), FireState.RUNNING, null));
        states.put(f.get(3).fireKey(), new RunState(f.get(3).fireKey(), FireState.RUNNING_LEASE_ENDED, null));
        states.put(
                f.get(4).fireKey(),
                new RunState(f.get(4).fireKey(), FireState.ABANDONED, "run of node-a cut short: node-a shut down"));
        states.put(
                f.get(5).fireKey(), new RunState(f.get(5).fireKey(), FireState.REJECTED_STALE, "the lease of x ended"));
        var plan = plan(MissedFirePolicy.skip(), f, states);
        assertThat(plan.running()).isTrue();
        assertThat(plan.rows()).extracting(Missed::fire).containsExactlyElementsOf(f.subList(3, 6));
        assertThat(plan.codes())
                .containsEntry(f.get(3), "holder_lost")
                .containsEntry(f.get(4), "shutdown")
                .containsEntry(f.get(5), "rejected_stale");
        assertThat(plan.rows().get(2).reason())
                .startsWith("its holder lost its lease (paused or cut off) and was refused: the lease of x ended");
        // the account stops before the live run: it is not settled yet
        assertThat(plan.sweptUntil(NOW.minusSeconds(6), NOW, Set.copyOf(f.subList(3, 6)), true))
                .isEqualTo(f.get(1).dueAt());
    }

    @Test
    void aLongBacklog_theNewestGetARowEach_theRestOneSummaryPerReason() {
        List<DueFire> f = fires(5000);
        var plan = plan(MissedFirePolicy.catchUp().withMaxAge(Duration.ofMinutes(30)), f, Map.of());
        assertThat(plan.catchUps()).containsExactlyElementsOf(f.subList(4990, 5000));
        assertThat(plan.rows()).hasSize(FirePlan.PER_FIRE_ROWS);
        assertThat(plan.rows()).extracting(Missed::fire).containsExactlyElementsOf(f.subList(4980, 4990));
        // 5000 fires: 1801 young (11:30:00 to 12:00:00), 10 caught up, 10 with rows; 3199 too old and 1781 not caught
        // up
        // in summaries
        assertThat(plan.summaries()).extracting(Summary::fires).containsExactly(3199L, 1781L);
        assertThat(plan.summaries().get(0).reason())
                .startsWith("3199 fires due from " + f.get(0).dueAt() + " to "
                        + f.get(3198).dueAt() + " missed")
                .endsWith("older than the policy's max age PT30M");
        assertThat(plan.missedCount(Set.copyOf(f.subList(4980, 4990)), true)).isEqualTo(4990);
        // the account stands before the catch-ups, which are open until they ran
        assertThat(plan.sweptUntil(f.get(0).dueAt().minusSeconds(1), NOW, Set.copyOf(f.subList(4980, 4990)), true))
                .isEqualTo(f.get(4989).dueAt());
        assertThat(plan.sweptUntil(f.get(0).dueAt().minusSeconds(1), NOW, Set.copyOf(f.subList(4980, 4990)), false))
                .isEqualTo(f.get(0).dueAt().minusSeconds(1));
    }

    @Test
    void catchUp_ofAJobNoLiveProcessHas_recordsItsFiresMissedWithWhy() {
        List<DueFire> f = fires(3);
        Instant seen = NOW.minusSeconds(600);
        var plan = FirePlan.of("job", MissedFirePolicy.catchUp(), f, Map.of(), NOW, false, seen);
        assertThat(plan.catchUps()).isEmpty();
        assertThat(plan.open()).isEmpty();
        assertThat(plan.rows()).hasSize(3);
        assertThat(plan.rows().get(0).reason())
                .isEqualTo("no node ran it; no live process has registered the job since " + seen
                        + ", so nobody can catch it up");
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
