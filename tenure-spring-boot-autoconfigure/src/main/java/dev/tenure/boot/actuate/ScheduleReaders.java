package dev.tenure.boot.actuate;

import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The schedule readers of this instance, by kind: those of the schedules its jobs registered (e.g. Spring cron, Quartz),
 * as its sweeper has them, so that {@link dev.tenure.db.TenureAdmin#overdue} counts their overdue fires exactly.
 */
final class ScheduleReaders {

    private ScheduleReaders() {}

    /** The readers of {@code tenure}'s scheduled jobs now (it may register more later). */
    static Map<String, Function<String, Schedule>> of(Tenure tenure) {
        Map<String, Function<String, Schedule>> readers = new HashMap<>();
        for (ScheduledJob job : tenure.scheduledJobs()) {
            job.schedule()
                    .reader()
                    .ifPresent(r -> readers.putIfAbsent(job.schedule().kind(), r));
        }
        return readers;
    }
}
