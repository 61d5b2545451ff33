package dev.tenure.quartz;

import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.TimeZone;
import org.jspecify.annotations.Nullable;
import org.quartz.CronExpression;
import org.quartz.CronScheduleBuilder;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;

/**
 * Reads a {@link QuartzSchedule} back from its {@linkplain QuartzSchedule#expression() expression}: triggers joined with
 * {@code "; "}, each {@code cron <expression> (<zone>)} or {@code every <ISO duration> from <instant>[, <n> repeats]},
 * then {@code , until <instant>} if it ends. The triggers read give the same fire times as those described. Stateless.
 */
final class QuartzScheduleText {

    private static final String UNTIL = ", until ";

    private QuartzScheduleText() {}

    /**
     * The schedule {@code expression} describes.
     *
     * @throws IllegalArgumentException if a trigger is of another type (calendar or daily intervals) or the text is
     *                                  not such an expression
     */
    static QuartzSchedule read(String expression) {
        String[] parts = expression.split("; ", -1);
        List<Trigger> triggers = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            triggers.add(trigger(parts[i], "read-%04d".formatted(i)));
        }
        return new QuartzSchedule(triggers);
    }

    private static Trigger trigger(String text, String name) {
        int u = text.lastIndexOf(UNTIL);
        String rest = u < 0 ? text : text.substring(0, u);
        Date until = u < 0 ? null : Date.from(instant(text.substring(u + UNTIL.length()), text));
        if (rest.startsWith("cron ")) {
            return cron(rest, until, text, name);
        }
        if (rest.startsWith("every ")) {
            return simple(rest, until, text, name);
        }
        throw new IllegalArgumentException("cannot read Quartz trigger '" + text + "' back: only cron and simple "
                + "triggers are readable (a job with other triggers is swept only by a process that registers it)");
    }

    /** {@code cron <expression> (<zone>)}; its fires do not depend on the start time ({@link QuartzSchedule}). */
    private static Trigger cron(String rest, @Nullable Date until, String text, String name) {
        int open = rest.lastIndexOf(" (");
        if (open < 0 || !rest.endsWith(")")) {
            throw unreadable(text, "a cron trigger reads 'cron <expression> (<zone>)'");
        }
        String expression = rest.substring("cron ".length(), open);
        String zone = rest.substring(open + 2, rest.length() - 1);
        TimeZone tz = TimeZone.getTimeZone(zone);
        if (!tz.getID().equals(zone)) {
            throw unreadable(text, "unknown time zone '" + zone + "'");
        }
        try {
            new CronExpression(expression);
        } catch (ParseException e) {
            throw unreadable(text, "not a cron expression: " + e.getMessage());
        }
        return build(
                TriggerBuilder.newTrigger()
                        .withIdentity(name, "read")
                        .startAt(new Date(0))
                        .endAt(until)
                        .withSchedule(
                                CronScheduleBuilder.cronSchedule(expression).inTimeZone(tz)),
                text);
    }

    /** {@code every <ISO duration> from <instant>[, <n> repeats]}. */
    private static Trigger simple(String rest, @Nullable Date until, String text, String name) {
        String[] words = rest.split(" ", -1);
        int repeats = -1;
        if (words.length == 6 && words[5].equals("repeats") && words[3].endsWith(",")) {
            repeats = count(words[4], text);
            words[3] = words[3].substring(0, words[3].length() - 1);
        } else if (words.length != 4) {
            throw unreadable(text, "a simple trigger reads 'every <ISO duration> from <instant>[, <n> repeats]'");
        }
        if (!words[2].equals("from")) {
            throw unreadable(text, "a simple trigger reads 'every <ISO duration> from <instant>[, <n> repeats]'");
        }
        long interval = interval(words[1], text);
        SimpleScheduleBuilder schedule = SimpleScheduleBuilder.simpleSchedule().withIntervalInMilliseconds(interval);
        return build(
                TriggerBuilder.newTrigger()
                        .withIdentity(name, "read")
                        .startAt(Date.from(instant(words[3], text)))
                        .endAt(until)
                        .withSchedule(repeats < 0 ? schedule.repeatForever() : schedule.withRepeatCount(repeats)),
                text);
    }

    private static Trigger build(TriggerBuilder<? extends Trigger> b, String text) {
        try {
            return b.build();
        } catch (RuntimeException e) { // an end before the start, say
            throw unreadable(text, String.valueOf(e.getMessage()));
        }
    }

    private static long interval(String iso, String text) {
        try {
            long ms = Duration.parse(iso).toMillis();
            if (ms < 1) {
                throw unreadable(text, "the interval must be at least 1 ms");
            }
            return ms;
        } catch (DateTimeParseException | ArithmeticException e) {
            throw unreadable(text, "not an ISO-8601 duration: '" + iso + "'");
        }
    }

    private static int count(String n, String text) {
        try {
            int repeats = Integer.parseInt(n);
            if (repeats < 0) {
                throw unreadable(text, "a negative repeat count");
            }
            return repeats;
        } catch (NumberFormatException e) {
            throw unreadable(text, "not a repeat count: '" + n + "'");
        }
    }

    private static Instant instant(String iso, String text) {
        try {
            return Instant.parse(iso);
        } catch (DateTimeParseException e) {
            throw unreadable(text, "not an ISO-8601 instant: '" + iso + "'");
        }
    }

    private static IllegalArgumentException unreadable(String text, String why) {
        return new IllegalArgumentException("cannot read Quartz trigger '" + text + "' back: " + why);
    }
}
