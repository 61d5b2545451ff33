package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tenure.testkit.Timing;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.StringValueResolver;

class ScheduleSlotsTest {

    private static final StringValueResolver AS_IS = s -> s.replace("${zone}", "Asia/Seoul");

    @Scheduled(cron = "* * * * * *", zone = "UTC")
    void everySecond() {}

    @Scheduled(cron = "0 0 2 * * *", zone = "${zone}")
    void nightlyInSeoul() {}

    @Scheduled(fixedRate = 5, timeUnit = TimeUnit.SECONDS)
    void everyFiveSeconds() {}

    @Scheduled(fixedRateString = "250ms")
    void everyQuarterSecond() {}

    @Scheduled(fixedDelay = 1000)
    void afterEachOther() {}

    @Scheduled(cron = "-")
    void disabled() {}

    @Scheduled(cron = "0 0 * * * *", zone = "Australia/Lord_Howe")
    void hourlyOnLordHowe() {}

    @Scheduled(cron = "0 */15 * * * *", zone = "Pacific/Chatham")
    void quarterHourlyOnChatham() {}

    private static UnaryOperator<Instant> slots(String method) throws NoSuchMethodException {
        Method m = ScheduleSlotsTest.class.getDeclaredMethod(method);
        return ScheduleSlots.of(m.getAnnotation(Scheduled.class), AS_IS, "ScheduleSlotsTest." + method);
    }

    @Test
    void cron_aFireOnTimeLateOrALittleEarly_namesTheSameSlot() throws Exception {
        UnaryOperator<Instant> s = slots("everySecond");
        Instant slot = Instant.parse("2026-12-02T10:15:03Z");
        assertThat(s.apply(slot)).isEqualTo(slot);
        assertThat(s.apply(slot.plusMillis(870))).isEqualTo(slot); // late, still in its second
        assertThat(s.apply(slot.minusMillis(40))).isEqualTo(slot); // Spring woke 40 ms early
        assertThat(s.apply(slot.minusMillis(150))).isEqualTo(slot.minusSeconds(1));
    }

    @Test
    void cron_inItsZone_theSlotIsTheLatestTimeOfTheExpression() throws Exception {
        UnaryOperator<Instant> s = slots("nightlyInSeoul");
        // 02:00 in Seoul is 17:00 UTC the day before; any time until the next one belongs to that slot
        assertThat(s.apply(Instant.parse("2026-12-02T09:30:00Z"))).isEqualTo(Instant.parse("2026-12-01T17:00:00Z"));
        assertThat(s.apply(Instant.parse("2026-12-02T17:00:00.050Z"))).isEqualTo(Instant.parse("2026-12-02T17:00:00Z"));
    }

    @Test
    void fixedRate_slotsAreAlignedOnTheEpoch_whateverTheInstanceStartedAt() throws Exception {
        UnaryOperator<Instant> s = slots("everyFiveSeconds");
        assertThat(s.apply(Instant.parse("2026-12-02T10:15:03.200Z"))).isEqualTo(Instant.parse("2026-12-02T10:15:00Z"));
        assertThat(s.apply(Instant.parse("2026-12-02T10:15:04.950Z"))).isEqualTo(Instant.parse("2026-12-02T10:15:05Z"));
        UnaryOperator<Instant> quarter = slots("everyQuarterSecond");
        assertThat(quarter.apply(Instant.parse("2026-12-02T10:15:03.460Z")))
                .isEqualTo(Instant.parse("2026-12-02T10:15:03.250Z"));
    }

    @Test
    void fixedDelay_hasNoSharedSlot_andIsRefusedNamingTheMethod() {
        assertThatThrownBy(() -> slots("afterEachOther"))
                .isInstanceOf(TenureConfigurationException.class)
                .hasMessageContaining("ScheduleSlotsTest.afterEachOther")
                .hasMessageContaining("fixedDelay");
    }

    @Test
    void disabledCron_isAccepted_butAFireOfItHasNoSlot() throws Exception {
        UnaryOperator<Instant> s = slots("disabled");
        assertThatThrownBy(() -> s.apply(Instant.now()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not scheduled");
    }

    /**
     * Spring 7's {@code CronExpression.next} does not move forward before these DST overlaps: on Lord Howe (a 30-minute
     * shift) {@code 0 0 * * * *} answers 14:00Z for every time from 14:00Z to 14:29:59Z, and on Chatham
     * {@code 0 *}{@code /15 * * * *} answers 12:15Z for every time from 13:00Z to 13:14:59Z. A fire there still gets the
     * latest time of the expression at or before it.
     */
    @ParameterizedTest(name = "{0} at {1} -> {2}")
    @CsvSource({
        "hourlyOnLordHowe, 2026-04-04T14:00:00Z, 2026-04-04T14:00:00Z",
        "hourlyOnLordHowe, 2026-04-04T14:10:00Z, 2026-04-04T14:00:00Z",
        "hourlyOnLordHowe, 2026-04-04T14:45:00Z, 2026-04-04T14:00:00Z",
        "hourlyOnLordHowe, 2026-04-04T15:29:59.950Z, 2026-04-04T15:30:00Z",
        "hourlyOnLordHowe, 2027-04-03T14:00:00Z, 2027-04-03T14:00:00Z",
        "hourlyOnLordHowe, 2027-04-03T14:29:59Z, 2027-04-03T14:00:00Z",
        "quarterHourlyOnChatham, 2026-04-04T13:00:00Z, 2026-04-04T13:00:00Z",
        "quarterHourlyOnChatham, 2026-04-04T13:05:00Z, 2026-04-04T13:00:00Z",
        "quarterHourlyOnChatham, 2026-04-04T13:14:59.950Z, 2026-04-04T13:15:00Z",
        "quarterHourlyOnChatham, 2026-04-04T13:20:00Z, 2026-04-04T13:15:00Z",
        "quarterHourlyOnChatham, 2027-04-03T13:10:00Z, 2027-04-03T13:00:00Z",
    })
    void cron_whereSpringsNextDoesNotMoveForward_aFireStillGetsItsSlot(String method, Instant fire, Instant slot)
            throws Exception {
        UnaryOperator<Instant> s = slots(method);
        assertThat(within(() -> s.apply(fire))).isEqualTo(slot);
    }

    /**
     * Around each DST transition of 2026 and 2027 on Lord Howe and Chatham, a fire every 10 s gets a slot that is a time
     * of the schedule the sweeper walks, and no later time of it comes before the fire: the slot is the fire key a
     * catch-up of that time would use.
     */
    @ParameterizedTest(name = "{0} in {1}")
    @CsvSource({
        "hourlyOnLordHowe, 0 0 * * * *, Australia/Lord_Howe",
        "quarterHourlyOnChatham, 0 */15 * * * *, Pacific/Chatham",
    })
    void cron_aroundEveryDstTransition_theSlotIsTheLatestTimeOfTheSweepersSchedule(
            String method, String cron, String zone) throws Exception {
        UnaryOperator<Instant> s = slots(method);
        SpringCronSchedule schedule = SpringCronSchedule.of(cron, ZoneId.of(zone));
        within(() -> {
            for (Instant transition : SpringCronScheduleTest.transitions(zone)) {
                for (Instant fire = transition.minus(Duration.ofHours(3));
                        fire.isBefore(transition.plus(Duration.ofHours(3)));
                        fire = fire.plusSeconds(10)) {
                    Instant slot = s.apply(fire);
                    Instant at = fire.plus(ScheduleSlots.EARLY);
                    assertThat(slot).as("the slot of a fire at %s", fire).isBeforeOrEqualTo(at);
                    assertThat(schedule.nextAfter(slot.minusSeconds(1)))
                            .as("the slot %s of a fire at %s is a time of the schedule", slot, fire)
                            .contains(slot);
                    assertThat(schedule.nextAfter(slot).orElseThrow())
                            .as("the time after the slot %s of a fire at %s", slot, fire)
                            .isAfter(at);
                }
            }
            return null;
        });
    }

    /** Runs {@code work} within a generous bound: a cron walk that never ends fails the test instead of hanging it. */
    private static <T> T within(ThrowingSupplier<T> work) {
        return assertTimeoutPreemptively(Timing.scaled(Duration.ofSeconds(20)), work, "a cron walk did not end");
    }
}
