package dev.tenure.quartz;

/**
 * Where the Quartz integration reports each fire's outcome and each suspect schedule. Implementations are thread-safe
 * and never throw. {@link MicrometerFireMetrics} publishes them as {@code tenure.job.fires} and
 * {@code tenure.quartz.schedule.warnings}.
 */
public interface FireMetrics {

    /**
     * One fire of {@code job} ended as {@code outcome}: a {@link dev.tenure.RunOutcome.Status} name in lower case
     * ({@code executed}, {@code skipped_held_elsewhere}, ...), {@code vetoed_by_other_listener}, or a fault:
     * {@code fault_skipped}, {@code fault_ran_uncoordinated}, {@code fault_on_finish}; or
     * {@code skipped_schedule_refused} ({@link ScheduleCheck#REFUSE}).
     */
    void fire(String job, String outcome);

    /**
     * The schedule check found a trigger of {@code job} whose fire keys may differ between nodes; {@code reason}:
     * {@code simple_unaligned} or {@code cron_default_zone} (see {@link ScheduleCheck}). Reports nothing by default.
     */
    default void scheduleWarning(String job, String reason) {}

    /** Reports nothing. */
    static FireMetrics none() {
        return (job, outcome) -> {};
    }
}
