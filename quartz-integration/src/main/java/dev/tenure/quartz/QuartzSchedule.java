package dev.tenure.quartz;

import dev.tenure.Schedule;
import org.quartz.CronTrigger;
import org.quartz.SimpleTrigger;
import org.quartz.Trigger;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The schedule of a Quartz job: the fire times of its recurring triggers together, read with Quartz's own
 * {@link Trigger#getFireTimeAfter}, so they are the scheduled fire times that the coordinated fires use as fire keys.
 * One-shot triggers (a {@link SimpleTrigger} that does not repeat: {@code triggerJob}, a catch-up) are not part of it.
 * Immutable as far as the triggers are: it keeps the trigger objects it was given.
 */
record QuartzSchedule(List<Trigger> triggers) implements Schedule {

    QuartzSchedule {
        triggers = List.copyOf(triggers);
        if (triggers.isEmpty()) {
            throw new IllegalArgumentException("a Quartz schedule needs at least one recurring trigger");
        }
    }

    /** True for a trigger that fires more than once (cron, calendar, a repeating simple trigger). */
    static boolean recurring(Trigger t) {
        return !(t instanceof SimpleTrigger s) || s.getRepeatCount() != 0;
    }

    @Override
    public String kind() {
        return "quartz";
    }

    @Override
    public String expression() {
        return triggers.stream().sorted(Comparator.comparing(t -> t.getKey().toString()))
                .map(QuartzSchedule::describe).collect(Collectors.joining("; "));
    }

    private static String describe(Trigger t) {
        if (t instanceof CronTrigger c) {
            return "cron " + c.getCronExpression() + " (" + c.getTimeZone().getID() + ")";
        }
        if (t instanceof SimpleTrigger s) {
            return "every " + Duration.ofMillis(s.getRepeatInterval()) + " from " + s.getStartTime().toInstant()
                    + (s.getRepeatCount() < 0 ? "" : ", " + s.getRepeatCount() + " repeats");
        }
        return t.getClass().getSimpleName() + " " + t.getKey();
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        Date from = Date.from(after);
        return triggers.stream().map(t -> t.getFireTimeAfter(from)).filter(Objects::nonNull)
                .filter(d -> d.toInstant().isAfter(after)).map(Date::toInstant).min(Comparator.naturalOrder());
    }
}
