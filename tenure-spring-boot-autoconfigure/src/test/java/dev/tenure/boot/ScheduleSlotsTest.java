package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
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
}
