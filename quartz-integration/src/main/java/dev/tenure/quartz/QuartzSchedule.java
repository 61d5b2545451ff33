package dev.tenure.quartz;

import dev.tenure.Schedule;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.quartz.CronExpression;
import org.quartz.CronTrigger;
import org.quartz.SimpleTrigger;
import org.quartz.Trigger;

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
        return triggers.stream()
                .sorted(Comparator.comparing(t -> t.getKey().toString()))
                .map(QuartzSchedule::describe)
                .collect(Collectors.joining("; "));
    }

    /**
     * A trigger as text: {@code cron <expression> (<zone>)} or {@code every <ISO duration> from <instant>[, <n>
     * repeats]}, then {@code , until <instant>} if it has an end time; other triggers by type and key.
     */
    private static String describe(Trigger t) {
        String until = t.getEndTime() == null ? "" : ", until " + t.getEndTime().toInstant();
        if (t instanceof CronTrigger c) {
            return "cron " + c.getCronExpression() + " (" + c.getTimeZone().getID() + ")" + until;
        }
        if (t instanceof SimpleTrigger s) {
            return "every " + Duration.ofMillis(s.getRepeatInterval()) + " from "
                    + s.getStartTime().toInstant()
                    + (s.getRepeatCount() < 0 ? "" : ", " + s.getRepeatCount() + " repeats")
                    + until;
        }
        return t.getClass().getSimpleName() + " " + t.getKey();
    }

    /**
     * Reads schedules of kind {@code quartz} back from their {@link #expression()}, for a sweeper that walks an earlier
     * version or a job another process registered ({@link QuartzScheduleText}). Only cron and simple triggers are
     * readable; the reader throws {@link IllegalArgumentException} for other triggers and for text it cannot read.
     */
    @Override
    public Optional<Function<String, Schedule>> reader() {
        return Optional.of(QuartzScheduleText::read);
    }

    /**
     * The first fire time of any trigger after {@code after}. A cron trigger's times come from its expression in its
     * time zone, before its start time too: a node that started a moment ago created its triggers then, and Quartz's
     * {@code getFireTimeAfter} answers nothing before a trigger's start. The sweeper of such a node (a replacement, a
     * rolling deploy) must still see the fires that fell due while no node ran them. Other triggers count their fires
     * from their start time, so there are none before it.
     */
    @Override
    public Optional<Instant> nextAfter(Instant after) {
        Date from = Date.from(after);
        return triggers.stream()
                .map(t -> fireTimeAfter(t, from))
                .filter(Objects::nonNull)
                .filter(d -> d.toInstant().isAfter(after))
                .map(Date::toInstant)
                .min(Comparator.naturalOrder());
    }

    private static @Nullable Date fireTimeAfter(Trigger t, Date from) {
        if (!(t instanceof CronTrigger c)) {
            return t.getFireTimeAfter(from);
        }
        CronExpression e;
        try {
            e = new CronExpression(c.getCronExpression());
        } catch (ParseException ex) {
            return t.getFireTimeAfter(from); // Quartz parsed it when the trigger was built: not reached
        }
        e.setTimeZone(c.getTimeZone());
        Date next = e.getTimeAfter(from);
        return next == null || (c.getEndTime() != null && next.after(c.getEndTime())) ? null : next;
    }
}
