package dev.tenure.quartz;

import org.quartz.JobDataMap;
import org.quartz.JobExecutionContext;
import org.quartz.JobKey;
import org.quartz.Scheduler;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;

/**
 * The default job and fire keys of a Quartz fire.
 * <ul>
 * <li>Job key: {@code quartz:<group>:<name>}, each part URL-encoded, so every Quartz job key maps to its own valid
 *     lease key (no whitespace, braces or colons inside a part).</li>
 * <li>Fire key: the trigger's <em>scheduled</em> fire time as an ISO-8601 instant, the same on every node for one
 *     cron slot. A cluster-recovery fire ({@code isRecovering()}) uses the scheduled time of the fire it recovers, so
 *     it completes that fire at most once instead of adding a new one. A catch-up of a missed fire (Tenure's sweeper,
 *     through {@code triggerJob}) carries the missed fire's key in its trigger's data, and uses it.</li>
 * </ul>
 */
final class FireKeys {

    private FireKeys() {
    }

    static String jobKey(JobKey key) {
        return "quartz:" + encode(key.getGroup()) + ":" + encode(key.getName());
    }

    static String fireKey(JobExecutionContext context) {
        JobDataMap fired = context.getTrigger().getJobDataMap();
        String caughtUp = fired == null ? null : fired.getString(QuartzSchedules.CATCH_UP_FIRE_KEY);
        if (caughtUp != null) {
            return caughtUp;
        }
        if (context.isRecovering()) {
            JobDataMap data = context.getTrigger().getJobDataMap();
            String original = data == null ? null
                    : data.getString(Scheduler.FAILED_JOB_ORIGINAL_TRIGGER_SCHEDULED_FIRETIME_IN_MILLISECONDS);
            if (original != null) {
                return Instant.ofEpochMilli(Long.parseLong(original)).toString();
            }
        }
        Date scheduled = context.getScheduledFireTime();
        return (scheduled != null ? scheduled : context.getFireTime()).toInstant().toString();
    }

    private static String encode(String part) {
        return URLEncoder.encode(part, StandardCharsets.UTF_8);
    }
}
