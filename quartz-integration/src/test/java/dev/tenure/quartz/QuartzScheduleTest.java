package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.Schedule;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.TimeZone;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.quartz.CalendarIntervalScheduleBuilder;
import org.quartz.CronScheduleBuilder;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;

/**
 * A Quartz job's schedule as the sweeper reads it. A node that starts (a replacement, a rolling deploy) creates its
 * triggers now, and Quartz's {@code getFireTimeAfter} answers nothing before a trigger's start time: the sweeper of
 * that node must still see the cron fires that fell due before it started, or they are never caught up nor reported.
 */
class QuartzScheduleTest {

    private static final Instant STARTED = Instant.parse("2026-12-04T14:44:04.800Z");

    @Test
    void cronTrigger_startedNow_stillListsTheFiresDueBeforeItsStart() {
        Trigger cron = TriggerBuilder.newTrigger()
                .withIdentity("tick", "g")
                .startAt(Date.from(STARTED))
                .withSchedule(CronScheduleBuilder.cronSchedule("*/2 * * * * ?").inTimeZone(TimeZone.getTimeZone("UTC")))
                .build();
        QuartzSchedule s = new QuartzSchedule(List.of(cron));

        assertThat(s.nextAfter(Instant.parse("2026-12-04T14:43:58Z"))).contains(Instant.parse("2026-12-04T14:44:00Z"));
        assertThat(s.nextAfter(Instant.parse("2026-12-04T14:44:00Z"))).contains(Instant.parse("2026-12-04T14:44:02Z"));
        assertThat(s.nextAfter(Instant.parse("2026-12-04T14:44:04Z"))).contains(Instant.parse("2026-12-04T14:44:06Z"));
    }

    @Test
    void cronTrigger_inItsTimeZone_andNotAfterItsEnd() {
        Trigger cron = TriggerBuilder.newTrigger()
                .withIdentity("nightly", "g")
                .startAt(Date.from(STARTED))
                .endAt(Date.from(Instant.parse("2026-12-06T00:00:00Z")))
                .withSchedule(
                        CronScheduleBuilder.cronSchedule("0 0 2 * * ?").inTimeZone(TimeZone.getTimeZone("Asia/Seoul")))
                .build();
        QuartzSchedule s = new QuartzSchedule(List.of(cron));

        // 02:00 in Seoul is 17:00 UTC the day before
        assertThat(s.nextAfter(Instant.parse("2026-12-03T12:00:00Z"))).contains(Instant.parse("2026-12-03T17:00:00Z"));
        assertThat(s.nextAfter(Instant.parse("2026-12-04T17:00:00Z"))).contains(Instant.parse("2026-12-05T17:00:00Z"));
        assertThat(s.nextAfter(Instant.parse("2026-12-05T17:00:00Z"))).isEmpty();
    }

    @Test
    void simpleTrigger_keepsItsPhase_fromItsStartTime() {
        Trigger every2s = TriggerBuilder.newTrigger()
                .withIdentity("every", "g")
                .startAt(Date.from(STARTED))
                .withSchedule(SimpleScheduleBuilder.simpleSchedule()
                        .withIntervalInSeconds(2)
                        .repeatForever())
                .build();
        QuartzSchedule s = new QuartzSchedule(List.of(every2s));

        // a simple trigger's fires are counted from its start: there is none before it
        assertThat(s.nextAfter(Instant.parse("2026-12-04T14:43:58Z"))).contains(STARTED);
        assertThat(s.nextAfter(STARTED)).contains(STARTED.plusSeconds(2));
    }

    @Test
    void reader_cronAndSimpleTriggers_readBackWithTheSameFireTimes() {
        Trigger nightly = TriggerBuilder.newTrigger()
                .withIdentity("a-nightly", "g")
                .startAt(Date.from(STARTED))
                .withSchedule(CronScheduleBuilder.cronSchedule("0 0 2 ? * MON-FRI")
                        .inTimeZone(TimeZone.getTimeZone("Asia/Seoul")))
                .build();
        Trigger every7s = TriggerBuilder.newTrigger()
                .withIdentity("b-every", "g")
                .startAt(Date.from(STARTED))
                .withSchedule(SimpleScheduleBuilder.simpleSchedule()
                        .withIntervalInMilliseconds(7_250)
                        .repeatForever())
                .build();
        Trigger fiveTimes = TriggerBuilder.newTrigger()
                .withIdentity("c-five", "g")
                .startAt(Date.from(STARTED.plusSeconds(3)))
                .withSchedule(SimpleScheduleBuilder.simpleSchedule()
                        .withIntervalInSeconds(60)
                        .withRepeatCount(5))
                .build();
        Trigger ending = TriggerBuilder.newTrigger()
                .withIdentity("d-ending", "g")
                .startAt(Date.from(STARTED))
                .endAt(Date.from(STARTED.plusSeconds(3_600)))
                .withSchedule(CronScheduleBuilder.cronSchedule("0 */7 * * * ?").inTimeZone(TimeZone.getTimeZone("UTC")))
                .build();
        for (List<Trigger> triggers : List.of(
                List.of(nightly),
                List.of(every7s),
                List.of(fiveTimes),
                List.of(ending),
                List.of(nightly, every7s, fiveTimes, ending))) {
            QuartzSchedule original = new QuartzSchedule(triggers);
            Schedule read = reader(original).apply(original.expression());

            assertThat(read.kind()).isEqualTo("quartz");
            assertThat(read.expression()).isEqualTo(original.expression());
            assertThat(fires(read, STARTED.minusSeconds(86_400), 400))
                    .as("fire times of %s", original.expression())
                    .isEqualTo(fires(original, STARTED.minusSeconds(86_400), 400));
        }
    }

    @Test
    void reader_otherTriggerTypesAndBadText_areNotReadable() {
        Trigger calendar = TriggerBuilder.newTrigger()
                .withIdentity("monthly", "g")
                .withSchedule(CalendarIntervalScheduleBuilder.calendarIntervalSchedule()
                        .withIntervalInMonths(1))
                .build();
        QuartzSchedule s = new QuartzSchedule(List.of(calendar));
        Function<String, Schedule> reader = reader(s);

        assertThatThrownBy(() -> reader.apply(s.expression()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CalendarIntervalTriggerImpl")
                .hasMessageContaining("only cron and simple triggers");
        for (String bad : List.of(
                "",
                "cron * * * * * ?",
                "cron 61 * * * * ? (UTC)",
                "cron * * * * * ? (Not/AZone)",
                "every PT1S",
                "every 1s from 2026-12-04T14:44:04.800Z",
                "every PT1S from yesterday",
                "every PT1S from 2026-12-04T14:44:04.800Z, many repeats")) {
            assertThatThrownBy(() -> reader.apply(bad)).as("'%s'", bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    private static Function<String, Schedule> reader(Schedule s) {
        Optional<Function<String, Schedule>> reader = s.reader();
        assertThat(reader).as("a reader of kind quartz").isPresent();
        return reader.get();
    }

    /** The first {@code n} fire times after {@code from} (fewer if the schedule ends). */
    private static List<Instant> fires(Schedule s, Instant from, int n) {
        List<Instant> out = new ArrayList<>();
        Instant t = from;
        for (int i = 0; i < n; i++) {
            Optional<Instant> next = s.nextAfter(t);
            if (next.isEmpty()) {
                break;
            }
            out.add(next.get());
            t = next.get();
        }
        return out;
    }
}
