package dev.tenure.quartz;

/**
 * What Tenure does about a coordinated trigger whose fire keys (scheduled fire times) may not be the same on every
 * node: a repeating {@code SimpleTrigger} whose start time is not on its interval's epoch grid, on a non-clustered
 * job store (each node runs the job once per period), or a {@code CronTrigger} in the JVM's default time zone, unless
 * that zone is UTC (nodes in other zones fire at other instants). Triggers are checked by
 * {@link QuartzCoordination#checkSchedules} (also run by {@code registerListeners}) and as they are scheduled later;
 * triggers matched by {@code intendedSchedules(...)} are not checked. Every suspect trigger is a WARN line naming the
 * trigger, the job, the problem and the fix, and a {@link FireMetrics#scheduleWarning} count.
 */
public enum ScheduleCheck {
    /** The default: warn and count; the fires run as scheduled. */
    WARN,
    /**
     * Warn and count, and fail closed: {@code checkSchedules} (and {@code registerListeners}, after registering) throws
     * {@link ScheduleRefusedException} listing every suspect trigger already scheduled, and every fire of a suspect
     * trigger, scheduled before or after, is skipped (vetoed, or not run by the job factory) with a log line and a
     * {@code skipped_schedule_refused} fire count. Nothing is thrown into Quartz.
     */
    REFUSE,
    /** No check. */
    OFF
}
