package dev.tenure.quartz;

/**
 * Where the Quartz integration reports each fire's outcome. Implementations are thread-safe and never throw.
 * {@link MicrometerFireMetrics} publishes them as {@code tenure.job.fires}.
 */
public interface FireMetrics {

    /**
     * One fire of {@code job} ended as {@code outcome}: a {@link dev.tenure.RunOutcome.Status} name in lower case
     * ({@code executed}, {@code skipped_held_elsewhere}, ...), {@code vetoed_by_other_listener}, or a fault:
     * {@code fault_skipped}, {@code fault_ran_uncoordinated}, {@code fault_on_finish}.
     */
    void fire(String job, String outcome);

    /** Reports nothing. */
    static FireMetrics none() {
        return (job, outcome) -> {
        };
    }
}
