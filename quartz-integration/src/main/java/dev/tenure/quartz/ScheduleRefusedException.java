package dev.tenure.quartz;

import dev.tenure.TenureException;
import java.util.List;
import org.quartz.TriggerKey;

/**
 * Thrown by {@link QuartzCoordination#checkSchedules} (and {@code registerListeners}) under
 * {@link ScheduleCheck#REFUSE} when coordinated triggers have schedules whose fire keys may differ between nodes. The
 * message lists every such trigger with its job, the problem and the fix. Tenure's listeners (if registered) stay in
 * place: the fires of these triggers are skipped until each is fixed or exempted ({@code intendedSchedules(...)}).
 */
public class ScheduleRefusedException extends TenureException {

    private final List<TriggerKey> triggers;

    /**
     * @param triggers     the suspect triggers (not empty)
     * @param explanations one explanation per trigger (trigger, job, problem, fix)
     */
    public ScheduleRefusedException(List<TriggerKey> triggers, List<String> explanations) {
        super(
                "Tenure refuses " + triggers.size()
                        + " Quartz trigger(s) whose fire keys would not be the same on every "
                        + "node (ScheduleCheck.REFUSE); their fires are skipped until each is fixed or exempted:\n  - "
                        + String.join("\n  - ", explanations),
                null);
        this.triggers = List.copyOf(triggers);
    }

    /** The suspect triggers, in the order they were found. */
    public List<TriggerKey> triggers() {
        return triggers;
    }
}
