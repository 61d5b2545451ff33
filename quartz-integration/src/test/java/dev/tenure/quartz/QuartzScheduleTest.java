package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;
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
}
