package dev.tenure.quartz;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import org.quartz.JobDataMap;
import org.quartz.JobExecutionContext;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.Trigger;

/**
 * The default job and fire keys of a Quartz fire.
 * <ul>
 * <li>Job key: {@code quartz:<group>:<name>}, each part URL-encoded, so every Quartz job key maps to its own valid
 *     lease key (no whitespace, braces or colons inside a part).</li>
 * <li>Fire key: the trigger's <em>scheduled</em> fire time as an ISO-8601 instant, the same on every node for one
 *     cron slot. A cluster-recovery fire ({@code isRecovering()}) uses the scheduled time of the fire it recovers, so
 *     it completes that fire at most once instead of adding a new one. A catch-up of a missed fire (Tenure's sweeper,
 *     through {@code triggerJob}) carries the missed fire's key in its trigger's data, and uses it. A misfired fire (Quartz's
 *     "fire once now") counts for the latest slot of its trigger at or before its time ({@link #slotOf}).</li>
 * </ul>
 */
final class FireKeys {

    private static final long LONGEST_LOOK_BACK_MS = 800L * 24 * 3600 * 1000;

    private FireKeys() {}

    static String jobKey(JobKey key) {
        return "quartz:" + encode(key.getGroup()) + ":" + encode(key.getName());
    }

    static String fireKey(JobExecutionContext context) {
        JobDataMap fired = context.getTrigger().getJobDataMap();
        String caughtUp = fired == null ? null : fired.getString(QuartzCatchUps.FIRE_KEY);
        if (caughtUp != null) {
            return caughtUp;
        }
        if (context.isRecovering()) {
            JobDataMap data = context.getTrigger().getJobDataMap();
            String original = data == null
                    ? null
                    : data.getString(Scheduler.FAILED_JOB_ORIGINAL_TRIGGER_SCHEDULED_FIRETIME_IN_MILLISECONDS);
            if (original != null) {
                return Instant.ofEpochMilli(Long.parseLong(original)).toString();
            }
        }
        Date scheduled = context.getScheduledFireTime();
        Date fire = scheduled != null ? scheduled : context.getFireTime();
        return slotOf(context.getTrigger(), fire).toInstant().toString();
    }

    /**
     * The fire time of {@code trigger}'s schedule that a fire at {@code time} stands for: {@code time} itself when it is
     * one, else the latest one before it. A misfired cron trigger fires once "now" (Quartz's default instruction), at a
     * time that is no slot: it counts for the latest slot it missed, which it may then run at most once like any fire of
     * that slot (and not at all if that slot completed, or Tenure's sweeper recorded it MISSED).
     */
    static Date slotOf(Trigger trigger, Date time) {
        if (trigger == null || !QuartzSchedule.recurring(trigger)) {
            return time;
        }
        Date onSchedule = trigger.getFireTimeAfter(new Date(time.getTime() - 1));
        if (time.equals(onSchedule)) {
            return time;
        }
        for (long back = 1000; back <= LONGEST_LOOK_BACK_MS; back *= 2) {
            Date slot = trigger.getFireTimeAfter(new Date(time.getTime() - back));
            if (slot != null && !slot.after(time)) {
                for (Date next = trigger.getFireTimeAfter(slot);
                        next != null && !next.after(time);
                        next = trigger.getFireTimeAfter(slot)) {
                    slot = next;
                }
                return slot;
            }
        }
        return time; // no slot in the look-back: the fire keeps its own time
    }

    private static String encode(String part) {
        return URLEncoder.encode(part, StandardCharsets.UTF_8);
    }
}
