package dev.tenure.quartz;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.zone.ZoneRules;
import java.util.Date;
import java.util.Optional;
import java.util.TimeZone;
import org.quartz.CronTrigger;
import org.quartz.SimpleTrigger;
import org.quartz.Trigger;

/**
 * Why a trigger's fire keys (its scheduled fire times) may not be the same on every node. Pure logic: the job store
 * kind and the JVM's default zone are parameters.
 * <ul>
 * <li>{@link #SIMPLE_UNALIGNED}: a repeating {@link SimpleTrigger} fires at {@code start + k * interval}; with a start
 *     time each node picks for itself ({@code startNow()}) on per-node job stores, each node has its own grid. A
 *     start on the interval's epoch grid ({@code start % interval == 0}) is the same everywhere. Not a risk on a
 *     clustered job store (one stored trigger for all nodes), nor for a one-shot trigger (a single deliberate fire:
 *     {@code Scheduler.triggerJob}, a cluster-recovery fire).</li>
 * <li>{@link #CRON_DEFAULT_ZONE}: a {@link CronTrigger} in the JVM's default zone, which Quartz fills in when no zone
 *     was given, so an explicit zone cannot be told apart. Nodes with other default zones fire it at other instants
 *     (per-node stores), or its instant follows whichever node stored it last (clustered store: Spring's
 *     {@code overwriteExistingJobs} re-stores it at each start): a risk for both. Not when the default zone is
 *     UTC-equivalent: an implicit and an explicit UTC are the same, UTC is the usual fix, and a node with another
 *     default still flags its own implicit trigger, so a divergence is reported where it is.</li>
 * </ul>
 * Other trigger types are not checked.
 */
enum ScheduleRisk {
    SIMPLE_UNALIGNED("simple_unaligned"),
    CRON_DEFAULT_ZONE("cron_default_zone");

    private final String tag;

    ScheduleRisk(String tag) {
        this.tag = tag;
    }

    /**
     * The risk of {@code trigger}, if any.
     *
     * @param clusteredStore true if the scheduler's job store is clustered (one trigger shared by all nodes)
     * @param jvmDefault     this JVM's default time zone
     */
    static Optional<ScheduleRisk> of(Trigger trigger, boolean clusteredStore, TimeZone jvmDefault) {
        if (trigger instanceof SimpleTrigger simple && !clusteredStore && repeats(simple) && !aligned(simple)) {
            return Optional.of(SIMPLE_UNALIGNED);
        }
        if (trigger instanceof CronTrigger cron
                && cron.getTimeZone().getID().equals(jvmDefault.getID())
                && !utcEquivalent(jvmDefault)) {
            return Optional.of(CRON_DEFAULT_ZONE);
        }
        return Optional.empty();
    }

    /** The metric tag ({@code reason}). */
    String tag() {
        return tag;
    }

    /** Names the trigger and the job, says what is wrong and how to fix it. */
    String explain(Trigger trigger) {
        String which = "trigger " + trigger.getKey() + " of job " + trigger.getJobKey();
        if (this == SIMPLE_UNALIGNED) {
            SimpleTrigger simple = (SimpleTrigger) trigger;
            return which + " is a repeating SimpleTrigger whose start time " + instant(simple.getStartTime())
                    + " is not on its " + simple.getRepeatInterval() + " ms interval's epoch grid, on a non-clustered "
                    + "job store: each node computes its own fire times, so each node's fires get their own fire keys "
                    + "and the job runs once per node per period. Fix: start it on the grid (startAt(new Date((now / "
                    + "interval + 1) * interval)), e.g. DateBuilder.evenMinuteDate(null) for an interval that divides "
                    + "a minute) or use a cron trigger with an explicit time zone; if every node computes this start "
                    + "time the same way, exempt the trigger with intendedSchedules(...)";
        }
        String zone = ((CronTrigger) trigger).getTimeZone().getID();
        return which + " is a CronTrigger in this JVM's default time zone " + zone + ", which is also what Quartz "
                + "fills in when no zone is given: nodes with other default zones fire it at other instants (other "
                + "fire keys: the job runs once per zone), and on a clustered job store its instant follows the node "
                + "that stored it last. Fix: CronScheduleBuilder.cronSchedule(...).inTimeZone(TimeZone.getTimeZone(\""
                + zone + "\")) (or UTC) on every node; if the zone is already explicit, exempt the trigger with "
                + "intendedSchedules(...)";
    }

    private static boolean repeats(SimpleTrigger trigger) {
        return trigger.getRepeatCount() != 0 && trigger.getRepeatInterval() > 0;
    }

    private static boolean aligned(SimpleTrigger trigger) {
        Date start = trigger.getStartTime();
        return start != null && Math.floorMod(start.getTime(), trigger.getRepeatInterval()) == 0;
    }

    private static boolean utcEquivalent(TimeZone zone) {
        ZoneRules rules = zone.toZoneId().getRules();
        return rules.isFixedOffset() && rules.getOffset(Instant.EPOCH).equals(ZoneOffset.UTC);
    }

    private static String instant(Date date) {
        return date == null ? "(none)" : date.toInstant().toString();
    }
}
