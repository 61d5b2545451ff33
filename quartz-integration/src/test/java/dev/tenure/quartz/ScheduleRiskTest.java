package dev.tenure.quartz;

import static dev.tenure.quartz.ScheduleRisk.CRON_DEFAULT_ZONE;
import static dev.tenure.quartz.ScheduleRisk.SIMPLE_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Date;
import java.util.TimeZone;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.quartz.CalendarIntervalScheduleBuilder;
import org.quartz.CronScheduleBuilder;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;

class ScheduleRiskTest {

    private static final TimeZone PARIS = TimeZone.getTimeZone("Europe/Paris");
    private static final TimeZone UTC = TimeZone.getTimeZone("UTC");
    /** A node's own "now": 734 ms past a whole minute. */
    private static final Instant NODE_NOW = Instant.parse("2026-12-02T10:15:00.734Z");

    private static final Instant MINUTE = Instant.parse("2026-12-02T10:16:00Z");

    private static Trigger simple(Instant start, SimpleScheduleBuilder schedule) {
        return TriggerBuilder.newTrigger()
                .withIdentity("t", "g")
                .forJob("j", "g")
                .startAt(Date.from(start))
                .withSchedule(schedule)
                .build();
    }

    private static Trigger cron(TimeZone zone) {
        CronScheduleBuilder schedule = CronScheduleBuilder.cronSchedule("0 0 2 * * ?");
        return TriggerBuilder.newTrigger()
                .withIdentity("t", "g")
                .forJob("j", "g")
                .withSchedule(zone == null ? schedule : schedule.inTimeZone(zone))
                .build();
    }

    @Nested
    class SimpleTriggers {

        @Test
        void startedAtTheNodesOwnTime_perNodeStore_isUnaligned() {
            Trigger t = simple(NODE_NOW, SimpleScheduleBuilder.repeatMinutelyForever());
            assertThat(ScheduleRisk.of(t, false, UTC)).contains(SIMPLE_UNALIGNED);
        }

        @Test
        void startedOnTheIntervalGrid_isSafe() {
            assertThat(ScheduleRisk.of(simple(MINUTE, SimpleScheduleBuilder.repeatMinutelyForever()), false, UTC))
                    .isEmpty();
            assertThat(ScheduleRisk.of(simple(MINUTE, SimpleScheduleBuilder.repeatSecondlyForever(15)), false, UTC))
                    .isEmpty();
        }

        @Test
        void onAWholeMinuteButNotOnAFiveMinuteGrid_isUnaligned() {
            Trigger t = simple(MINUTE, SimpleScheduleBuilder.repeatMinutelyForever(5));
            assertThat(ScheduleRisk.of(t, false, UTC)).contains(SIMPLE_UNALIGNED);
        }

        @Test
        void withAFiniteRepeatCount_stillRepeats_isUnaligned() {
            Trigger t = simple(NODE_NOW, SimpleScheduleBuilder.repeatMinutelyForTotalCount(3));
            assertThat(ScheduleRisk.of(t, false, UTC)).contains(SIMPLE_UNALIGNED);
        }

        @Test
        void clusteredStore_oneSharedTrigger_isSafe() {
            Trigger t = simple(NODE_NOW, SimpleScheduleBuilder.repeatMinutelyForever());
            assertThat(ScheduleRisk.of(t, true, UTC)).isEmpty();
        }

        @Test
        void oneShot_isASingleDeliberateFire_isSafe() {
            Trigger t = simple(NODE_NOW, SimpleScheduleBuilder.simpleSchedule());
            assertThat(ScheduleRisk.of(t, false, UTC)).isEmpty();
        }
    }

    @Nested
    class CronTriggers {

        @Test
        void inTheJvmsDefaultZone_isSuspect_onAnyStore() {
            assertThat(ScheduleRisk.of(cron(PARIS), false, PARIS)).contains(CRON_DEFAULT_ZONE);
            assertThat(ScheduleRisk.of(cron(PARIS), true, PARIS)).contains(CRON_DEFAULT_ZONE);
        }

        @Test
        void withoutAZone_quartzFillsInTheJvmDefault_whichIsSuspect() {
            TimeZone before = TimeZone.getDefault();
            TimeZone.setDefault(PARIS);
            try {
                Trigger t = cron(null);
                assertThat(ScheduleRisk.of(t, false, TimeZone.getDefault())).contains(CRON_DEFAULT_ZONE);
            } finally {
                TimeZone.setDefault(before);
            }
        }

        @Test
        void inAnotherZoneThanTheDefault_isExplicit_isSafe() {
            assertThat(ScheduleRisk.of(cron(TimeZone.getTimeZone("America/New_York")), false, PARIS))
                    .isEmpty();
            assertThat(ScheduleRisk.of(cron(UTC), false, PARIS)).isEmpty();
        }

        @Test
        void defaultZoneIsUtcEquivalent_isSafe() {
            for (String id : new String[] {"UTC", "Etc/UTC", "GMT", "Etc/GMT", "Zulu"}) {
                TimeZone zone = TimeZone.getTimeZone(id);
                assertThat(ScheduleRisk.of(cron(zone), false, zone)).as(id).isEmpty();
            }
        }

        @Test
        void defaultZoneAtUtcOnlyInWinter_isNotUtc_isSuspect() {
            TimeZone london = TimeZone.getTimeZone("Europe/London");
            assertThat(ScheduleRisk.of(cron(london), false, london)).contains(CRON_DEFAULT_ZONE);
        }
    }

    @Test
    void otherTriggerTypes_areNotChecked() {
        Trigger t = TriggerBuilder.newTrigger()
                .withIdentity("t", "g")
                .forJob("j", "g")
                .startAt(Date.from(NODE_NOW))
                .withSchedule(CalendarIntervalScheduleBuilder.calendarIntervalSchedule()
                        .inTimeZone(PARIS))
                .build();
        assertThat(ScheduleRisk.of(t, false, PARIS)).isEmpty();
    }

    @Test
    void explain_namesTriggerJobProblemAndFix() {
        String simple = SIMPLE_UNALIGNED.explain(simple(NODE_NOW, SimpleScheduleBuilder.repeatMinutelyForever()));
        assertThat(simple)
                .contains(
                        "trigger g.t of job g.j",
                        "2026-12-02T10:15:00.734Z",
                        "60000 ms",
                        "once per node per period",
                        "DateBuilder.evenMinuteDate",
                        "cron trigger",
                        "intendedSchedules");
        String cron = CRON_DEFAULT_ZONE.explain(cron(PARIS));
        assertThat(cron)
                .contains(
                        "trigger g.t of job g.j",
                        "Europe/Paris",
                        "once per zone",
                        "inTimeZone(TimeZone.getTimeZone(\"Europe/Paris\"))",
                        "intendedSchedules");
    }
}
