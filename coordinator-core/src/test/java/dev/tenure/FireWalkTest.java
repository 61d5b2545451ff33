package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.Span;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Walking a job's fires through the versions of its schedule and around its spans, in bounded steps. */
class FireWalkTest {

    private static final Instant NOW = Instant.parse("2026-12-04T12:00:00Z");
    private static final Schedule EVERY_SECOND = Schedule.fixedRate(Duration.ofSeconds(1));
    private static final Schedule EVERY_3S = Schedule.fixedRate(Duration.ofSeconds(3));
    private static final Schedule EVERY_2S = Schedule.fixedRate(Duration.ofSeconds(2));

    private static List<String> keys(FireWalk.Result r) {
        return r.fires().stream().map(DueFire::fireKey).toList();
    }

    @Test
    void everySlotAfterTheStartUpToTheEnd_oldestFirst() {
        FireWalk.Result r = FireWalk.walk(
                "job",
                List.of(new FireWalk.Segment(1, EVERY_SECOND, null, null)),
                List.of(),
                NOW.minusSeconds(3),
                NOW,
                100);
        assertThat(keys(r)).containsExactly("2026-12-04T11:59:58Z", "2026-12-04T11:59:59Z", "2026-12-04T12:00:00Z");
        assertThat(r.cut()).isFalse();
        assertThat(r.walkedTo()).isEqualTo(NOW);
    }

    @Test
    void aScheduleChange_theOldVersionUpToTheChange_theNewFromIt() {
        Instant change = Instant.parse("2026-12-04T11:59:50.100Z");
        FireWalk.Result r = FireWalk.walk(
                "job",
                List.of(
                        new FireWalk.Segment(1, EVERY_3S, null, change),
                        new FireWalk.Segment(2, EVERY_2S, change, null)),
                List.of(),
                NOW.minusSeconds(20),
                NOW.minusSeconds(4),
                100);
        // v1 (every 3 s) until 11:59:50.1: :42, :45, :48; v2 (every 2 s) from then: :52 .. :56
        assertThat(keys(r))
                .containsExactly(
                        "2026-12-04T11:59:42Z",
                        "2026-12-04T11:59:45Z",
                        "2026-12-04T11:59:48Z",
                        "2026-12-04T11:59:52Z",
                        "2026-12-04T11:59:54Z",
                        "2026-12-04T11:59:56Z");
    }

    @Test
    void firesInsideASpanAreNotDue_theSpanEndIs() {
        Span paused = new Span("PAUSED", NOW.minusSeconds(8), NOW.minusSeconds(3), "paused in Quartz");
        FireWalk.Result r = FireWalk.walk(
                "job",
                List.of(new FireWalk.Segment(1, EVERY_SECOND, null, null)),
                List.of(paused),
                NOW.minusSeconds(10),
                NOW,
                100);
        assertThat(keys(r))
                .containsExactly(
                        "2026-12-04T11:59:51Z",
                        "2026-12-04T11:59:57Z",
                        "2026-12-04T11:59:58Z",
                        "2026-12-04T11:59:59Z",
                        "2026-12-04T12:00:00Z");
        assertThat(r.excused()).isEqualTo(1); // the walk jumps over the span in one step
        Span open = new Span("PAUSED", NOW.minusSeconds(8), null, "paused");
        FireWalk.Result still = FireWalk.walk(
                "job",
                List.of(new FireWalk.Segment(1, EVERY_SECOND, null, null)),
                List.of(open),
                NOW.minusSeconds(10),
                NOW,
                100);
        assertThat(keys(still)).containsExactly("2026-12-04T11:59:51Z");
        assertThat(still.walkedTo()).isEqualTo(NOW);
    }

    @Test
    void theStepBoundCutsTheWalk_whereItStoppedIsItsEnd() {
        FireWalk.Result r = FireWalk.walk(
                "job",
                List.of(new FireWalk.Segment(1, EVERY_SECOND, null, null)),
                List.of(),
                NOW.minusSeconds(100),
                NOW,
                10);
        assertThat(r.cut()).isTrue();
        assertThat(r.fires()).hasSize(10);
        assertThat(r.walkedTo()).isEqualTo(r.fires().get(9).dueAt());
    }

    @Test
    void aNextThatDoesNotMoveForward_isAskedAgainLater_oneThatNeverMovesFailsClearly() {
        Schedule sticky = new Schedule() { // answers its own argument once, at 11:59:55 (a DST overlap)
                    @Override
                    public String kind() {
                        return "sticky";
                    }

                    @Override
                    public String expression() {
                        return "every second but stuck at 11:59:55";
                    }

                    @Override
                    public Optional<Instant> nextAfter(Instant after) {
                        Instant stuck = NOW.minusSeconds(5);
                        return after.equals(stuck) ? Optional.of(stuck) : EVERY_SECOND.nextAfter(after);
                    }
                };
        FireWalk.Result r = FireWalk.walk(
                "job", List.of(new FireWalk.Segment(1, sticky, null, null)), List.of(), NOW.minusSeconds(7), NOW, 100);
        assertThat(keys(r))
                .contains("2026-12-04T11:59:55Z", "2026-12-04T11:59:57Z")
                .doesNotHaveDuplicates();
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
                return Optional.of(NOW.minusSeconds(60));
            }
        };
        assertTimeoutPreemptively(Timing.scaled(Duration.ofSeconds(10)), () -> refusedClearly(stuck));
    }

    private static void refusedClearly(Schedule stuck) {
        assertThatThrownBy(() -> FireWalk.walk(
                        "stuck",
                        List.of(new FireWalk.Segment(1, stuck, null, null)),
                        List.of(),
                        NOW.minusSeconds(5),
                        NOW,
                        100))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("job 'stuck'")
                .hasMessageContaining("does not move forward");
    }
}
