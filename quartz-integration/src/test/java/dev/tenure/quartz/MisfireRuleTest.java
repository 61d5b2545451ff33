package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.MissedFirePolicy;
import dev.tenure.MissedFirePolicy.Action;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.quartz.CalendarIntervalScheduleBuilder;
import org.quartz.CronScheduleBuilder;
import org.quartz.DailyTimeIntervalScheduleBuilder;
import org.quartz.ScheduleBuilder;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;

/** What a trigger's misfire instruction means for Tenure's missed-fire policy ({@link MisfireRule}). */
class MisfireRuleTest {

    private static final MissedFirePolicy CATCH_UP = MissedFirePolicy.catchUp().withMaxCatchUps(3);

    @Test
    void neverFiresLate_theInstructionsThatSkipMissedFires() {
        assertThat(MisfireRule.neverFiresLate(trigger(
                        CronScheduleBuilder.cronSchedule("* * * * * ?").withMisfireHandlingInstructionDoNothing())))
                .isTrue();
        assertThat(MisfireRule.neverFiresLate(trigger(SimpleScheduleBuilder.repeatSecondlyForever()
                        .withMisfireHandlingInstructionNextWithExistingCount())))
                .isTrue();
        assertThat(MisfireRule.neverFiresLate(trigger(SimpleScheduleBuilder.repeatSecondlyForever()
                        .withMisfireHandlingInstructionNextWithRemainingCount())))
                .isTrue();
        assertThat(MisfireRule.neverFiresLate(trigger(CalendarIntervalScheduleBuilder.calendarIntervalSchedule()
                        .withMisfireHandlingInstructionDoNothing())))
                .isTrue();
        assertThat(MisfireRule.neverFiresLate(trigger(DailyTimeIntervalScheduleBuilder.dailyTimeIntervalSchedule()
                        .withMisfireHandlingInstructionDoNothing())))
                .isTrue();
    }

    @Test
    void neverFiresLate_notForInstructionsThatFireLate_norForQuartzsSmartDefault() {
        assertThat(MisfireRule.neverFiresLate(trigger(CronScheduleBuilder.cronSchedule("* * * * * ?"))))
                .isFalse();
        assertThat(MisfireRule.neverFiresLate(trigger(CronScheduleBuilder.cronSchedule("* * * * * ?")
                        .withMisfireHandlingInstructionFireAndProceed())))
                .isFalse();
        assertThat(MisfireRule.neverFiresLate(trigger(CronScheduleBuilder.cronSchedule("* * * * * ?")
                        .withMisfireHandlingInstructionIgnoreMisfires())))
                .isFalse();
        // the smart default of a repeat-forever simple trigger is Quartz's RESCHEDULE_NEXT_WITH_REMAINING_COUNT, but
        // nobody chose it: it is not read as "never fire late"
        assertThat(MisfireRule.neverFiresLate(trigger(SimpleScheduleBuilder.repeatSecondlyForever())))
                .isFalse();
        assertThat(MisfireRule.neverFiresLate(trigger(SimpleScheduleBuilder.repeatSecondlyForever()
                        .withMisfireHandlingInstructionNowWithExistingCount())))
                .isFalse();
        assertThat(MisfireRule.neverFiresLate(trigger(CalendarIntervalScheduleBuilder.calendarIntervalSchedule()
                        .withMisfireHandlingInstructionFireAndProceed())))
                .isFalse();
    }

    @Test
    void policyFor_catchUpBecomesSkip_onlyWhenEveryTriggerNeverFiresLate() {
        Trigger never =
                trigger(CronScheduleBuilder.cronSchedule("* * * * * ?").withMisfireHandlingInstructionDoNothing());
        Trigger late = trigger(CronScheduleBuilder.cronSchedule("*/5 * * * * ?"));

        assertThat(MisfireRule.policyFor(CATCH_UP, List.of(never))).isEqualTo(CATCH_UP.withAction(Action.SKIP));
        assertThat(MisfireRule.policyFor(CATCH_UP, List.of(never, late))).isEqualTo(CATCH_UP);
        assertThat(MisfireRule.policyFor(CATCH_UP, List.of(late))).isEqualTo(CATCH_UP);
        assertThat(MisfireRule.policyFor(CATCH_UP, List.of())).isEqualTo(CATCH_UP);
        MissedFirePolicy alert = MissedFirePolicy.alertOnly();
        assertThat(MisfireRule.policyFor(alert, List.of(never))).isEqualTo(alert);
        MissedFirePolicy skip = MissedFirePolicy.skip();
        assertThat(MisfireRule.policyFor(skip, List.of(never))).isEqualTo(skip);
    }

    private static Trigger trigger(ScheduleBuilder<? extends Trigger> schedule) {
        return TriggerBuilder.newTrigger()
                .withIdentity("t", "g")
                .withSchedule(schedule)
                .build();
    }
}
