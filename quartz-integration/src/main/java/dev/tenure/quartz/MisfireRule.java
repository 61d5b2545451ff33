package dev.tenure.quartz;

import dev.tenure.MissedFirePolicy;
import java.util.List;
import org.quartz.CalendarIntervalTrigger;
import org.quartz.CronTrigger;
import org.quartz.DailyTimeIntervalTrigger;
import org.quartz.SimpleTrigger;
import org.quartz.Trigger;

/**
 * What a trigger's misfire instruction means for Tenure's {@link MissedFirePolicy}. A catch-up is a fire run late, so a
 * job whose recurring triggers all say "never fire late" is not caught up: under {@link MissedFirePolicy.Action#CATCH_UP}
 * it is registered with {@link MissedFirePolicy.Action#SKIP} (its missed fires are recorded MISSED). SKIP and ALERT_ONLY
 * stay as they are. "Never fire late" is an instruction someone chose: {@code CronTrigger},
 * {@code CalendarIntervalTrigger} and {@code DailyTimeIntervalTrigger} {@code MISFIRE_INSTRUCTION_DO_NOTHING}, and
 * {@code SimpleTrigger} {@code MISFIRE_INSTRUCTION_RESCHEDULE_NEXT_WITH_EXISTING_COUNT} or {@code _REMAINING_COUNT}.
 * Quartz's smart default is not, even where Quartz resolves it to a "reschedule next" (a simple trigger that repeats
 * for ever). Stateless.
 */
final class MisfireRule {

    private MisfireRule() {}

    /** True if {@code trigger}'s misfire instruction skips the fires it missed instead of running them late. */
    static boolean neverFiresLate(Trigger trigger) {
        int i = trigger.getMisfireInstruction();
        if (trigger instanceof CronTrigger) {
            return i == CronTrigger.MISFIRE_INSTRUCTION_DO_NOTHING;
        }
        if (trigger instanceof SimpleTrigger) {
            return i == SimpleTrigger.MISFIRE_INSTRUCTION_RESCHEDULE_NEXT_WITH_EXISTING_COUNT
                    || i == SimpleTrigger.MISFIRE_INSTRUCTION_RESCHEDULE_NEXT_WITH_REMAINING_COUNT;
        }
        if (trigger instanceof CalendarIntervalTrigger) {
            return i == CalendarIntervalTrigger.MISFIRE_INSTRUCTION_DO_NOTHING;
        }
        if (trigger instanceof DailyTimeIntervalTrigger) {
            return i == DailyTimeIntervalTrigger.MISFIRE_INSTRUCTION_DO_NOTHING;
        }
        return false;
    }

    /**
     * The policy of a job with these recurring triggers: {@code configured}, or SKIP (with its bounds) when it catches
     * up and every trigger never fires late.
     */
    static MissedFirePolicy policyFor(MissedFirePolicy configured, List<? extends Trigger> recurring) {
        if (configured.action() != MissedFirePolicy.Action.CATCH_UP
                || recurring.isEmpty()
                || !recurring.stream().allMatch(MisfireRule::neverFiresLate)) {
            return configured;
        }
        return configured.withAction(MissedFirePolicy.Action.SKIP);
    }
}
