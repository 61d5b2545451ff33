package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.scheduling.support.CronExpression;

/**
 * The schedule the sweeper walks for a {@code @Scheduled} cron. Spring 7's {@code CronExpression.next} returns its
 * argument, or an earlier time, before some DST overlaps; the schedule still moves forward there, to the times Spring's
 * scheduler fires.
 */
class SpringCronScheduleTest {

    private static final SpringCronSchedule LORD_HOWE_HOURLY =
            SpringCronSchedule.of("0 0 * * * *", ZoneId.of("Australia/Lord_Howe"));
    private static final SpringCronSchedule CHATHAM_QUARTER_HOURLY =
            SpringCronSchedule.of("0 */15 * * * *", ZoneId.of("Pacific/Chatham"));

    @Test
    void reader_readsTheExpressionBack_sameFireTimes_refusesOtherText() {
        SpringCronSchedule original = SpringCronSchedule.of("0 */15 * * * *", ZoneId.of("Pacific/Chatham"));
        dev.tenure.Schedule read = original.reader().orElseThrow().apply(original.expression());
        assertThat(read.expression()).isEqualTo("0 */15 * * * * (Pacific/Chatham)");
        Instant t = Instant.parse("2026-04-04T12:00:00Z");
        for (int i = 0; i < 10; i++) {
            Instant next = original.nextAfter(t).orElseThrow();
            assertThat(read.nextAfter(t)).contains(next);
            t = next;
        }
        assertThat(catchThrowable(() -> original.reader().orElseThrow().apply("0 0 * * * *")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a Spring cron schedule");
        assertThat(catchThrowable(() -> original.reader().orElseThrow().apply("0 0 * * * * (Mars/Base)")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void springsOwnNext_doesNotMoveForward_atTheseInstants() {
        CronExpression hourly = CronExpression.parse("0 0 * * * *");
        Instant lordHowe = Instant.parse("2026-04-04T14:00:00Z");
        assertThat(hourly.next(lordHowe.atZone(ZoneId.of("Australia/Lord_Howe")))
                        .toInstant())
                .isEqualTo(lordHowe);
        CronExpression quarterHourly = CronExpression.parse("0 */15 * * * *");
        Instant chatham = Instant.parse("2026-04-04T13:00:00Z");
        assertThat(quarterHourly
                        .next(chatham.atZone(ZoneId.of("Pacific/Chatham")))
                        .toInstant())
                .isEqualTo(Instant.parse("2026-04-04T12:15:00Z"));
    }

    @ParameterizedTest(name = "Lord Howe, after {0} -> {1}")
    @CsvSource({
        "2026-04-04T13:59:59Z, 2026-04-04T14:00:00Z",
        "2026-04-04T14:00:00Z, 2026-04-04T15:30:00Z",
        "2026-04-04T14:00:00.500Z, 2026-04-04T15:30:00Z",
        "2026-04-04T14:29:59Z, 2026-04-04T15:30:00Z",
        "2026-04-04T14:30:00Z, 2026-04-04T15:30:00Z",
        "2027-04-03T14:00:00Z, 2027-04-03T15:30:00Z",
    })
    void lordHowe_nextAfter_isStrictlyAfter_andTheNextHourOnTheLocalClock(Instant after, Instant next) {
        assertThat(within(() -> LORD_HOWE_HOURLY.nextAfter(after))).contains(next);
    }

    @ParameterizedTest(name = "Chatham, after {0} -> {1}")
    @CsvSource({
        "2026-04-04T13:00:00Z, 2026-04-04T13:15:00Z",
        "2026-04-04T13:07:30Z, 2026-04-04T13:15:00Z",
        "2026-04-04T13:14:59Z, 2026-04-04T13:15:00Z",
        "2026-04-04T13:15:00Z, 2026-04-04T13:30:00Z",
        "2027-04-03T13:00:00Z, 2027-04-03T13:15:00Z",
    })
    void chatham_nextAfter_isStrictlyAfter_andTheNextQuarterOnTheLocalClock(Instant after, Instant next) {
        assertThat(within(() -> CHATHAM_QUARTER_HOURLY.nextAfter(after))).contains(next);
    }

    @Test
    void walkingTheSchedule_acrossTheOverlaps_endsWithTheTimesSpringsSchedulerFires() {
        assertThat(within(() -> walk(
                        LORD_HOWE_HOURLY,
                        Instant.parse("2026-04-04T12:30:00Z"),
                        Instant.parse("2026-04-04T17:00:00Z"))))
                .containsExactly(
                        Instant.parse("2026-04-04T13:00:00Z"), // 00:00 +11:00
                        Instant.parse("2026-04-04T14:00:00Z"), // 01:00 +11:00
                        Instant.parse("2026-04-04T15:30:00Z"), // 02:00 +10:30: 01:30-02:00 came twice, no hour in it
                        Instant.parse("2026-04-04T16:30:00Z"));
        assertThat(within(() -> walk(
                        CHATHAM_QUARTER_HOURLY,
                        Instant.parse("2026-04-04T12:40:00Z"),
                        Instant.parse("2026-04-04T15:20:00Z"))))
                .containsExactly(
                        Instant.parse("2026-04-04T12:45:00Z"), // 02:30 +13:45
                        Instant.parse("2026-04-04T13:00:00Z"), // 02:45 +13:45
                        Instant.parse("2026-04-04T13:15:00Z"), // 03:00 +13:45, where Spring's next is stuck
                        Instant.parse("2026-04-04T13:30:00Z"),
                        Instant.parse("2026-04-04T13:45:00Z"),
                        Instant.parse("2026-04-04T15:00:00Z"), // 03:45 +12:45, Spring's answer after 13:45Z
                        Instant.parse("2026-04-04T15:15:00Z"));
    }

    @ParameterizedTest(name = "{0} in {1}")
    @CsvSource({
        "0 0 * * * *, Australia/Lord_Howe",
        "0 */15 * * * *, Pacific/Chatham",
        "0 */15 * * * *, Australia/Lord_Howe",
        "0 0 * * * *, Pacific/Chatham",
        "0 */15 * * * *, Europe/Berlin",
    })
    void nextAfter_aroundEveryDstTransitionOf2026And2027_isStrictlyAfterItsArgument(String cron, String zone) {
        SpringCronSchedule schedule = SpringCronSchedule.of(cron, ZoneId.of(zone));
        within(() -> {
            for (Instant transition : transitions(zone)) {
                for (Instant after = transition.minus(Duration.ofHours(3));
                        after.isBefore(transition.plus(Duration.ofHours(3)));
                        after = after.plusSeconds(1)) {
                    Optional<Instant> next = schedule.nextAfter(after);
                    assertThat(next).as("the time after %s", after).isPresent();
                    assertThat(next.get()).as("the time after %s", after).isAfter(after);
                }
            }
            return null;
        });
    }

    @Test
    void aWalkBeyondItsBound_throwsNamingTheExpressionZoneAndInstant() {
        // every second of 02:00-02:59: the slot of 10:00 is reached by walking 3,600 times
        CronWalk walk = new CronWalk(CronExpression.parse("* * 2 * * *"), ZoneId.of("UTC"), 1_000);
        Instant at = Instant.parse("2026-12-02T10:00:00Z");
        Throwable e = catchThrowable(() -> walk.latestAtOrBefore(at));
        assertThat(e)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("* * 2 * * *")
                .hasMessageContaining("UTC")
                .hasMessageContaining(at.toString())
                .hasMessageContaining("1000 steps");
        assertThat(new CronWalk(CronExpression.parse("* * 2 * * *"), ZoneId.of("UTC")).latestAtOrBefore(at))
                .contains(Instant.parse("2026-12-02T02:59:59Z"));
    }

    /** The DST transitions of {@code zone} in 2026 and 2027. */
    static List<Instant> transitions(String zone) {
        List<Instant> out = new ArrayList<>();
        Instant end = Instant.parse("2028-01-01T00:00:00Z");
        for (ZoneOffsetTransition t = ZoneId.of(zone).getRules().nextTransition(Instant.parse("2026-01-01T00:00:00Z"));
                t != null && t.getInstant().isBefore(end);
                t = ZoneId.of(zone).getRules().nextTransition(t.getInstant())) {
            out.add(t.getInstant());
        }
        assertThat(out).as("the DST transitions of %s in 2026 and 2027", zone).hasSize(4);
        return out;
    }

    /** The times of {@code schedule} after {@code from} up to {@code to}, as the sweeper walks it (at most 100). */
    private static List<Instant> walk(SpringCronSchedule schedule, Instant from, Instant to) {
        List<Instant> out = new ArrayList<>();
        for (Optional<Instant> t = schedule.nextAfter(from);
                t.isPresent() && !t.get().isAfter(to) && out.size() < 100;
                t = schedule.nextAfter(t.get())) {
            out.add(t.get());
        }
        return out;
    }

    /** Runs {@code work} within a generous bound: a cron walk that never ends fails the test instead of hanging it. */
    private static <T> T within(ThrowingSupplier<T> work) {
        return assertTimeoutPreemptively(Timing.scaled(Duration.ofSeconds(20)), work, "a cron walk did not end");
    }
}
