package dev.tenure.boot;

import dev.tenure.Schedule;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.StringValueResolver;

/**
 * The slot of a fire of a {@code @Scheduled} method: a function of the time of the fire that every instance computes
 * alike. Cron: the latest time of the expression (in its zone) at or before the fire; fixed rate: the fire's time
 * rounded down to a multiple of the rate (since the epoch). A fire up to {@link #EARLY} before its slot (Spring's
 * scheduler may wake a little early) counts for that slot. Cron slots are found by a bounded {@link CronWalk}, which
 * also moves past the DST overlaps where Spring's own {@code CronExpression.next} does not.
 */
final class ScheduleSlots {

    /** How early a fire may come and still count for the slot it was scheduled for. */
    static final Duration EARLY = Duration.ofMillis(100);

    private ScheduleSlots() {}

    /**
     * The schedule of {@code scheduled} as Tenure's sweeper walks it (empty for a disabled cron, {@code "-"}).
     *
     * @throws TenureConfigurationException naming {@code where} when the schedule has no slot shared by instances
     */
    static Optional<Schedule> schedule(Scheduled scheduled, StringValueResolver resolver, String where) {
        of(scheduled, resolver, where); // the same checks and messages
        String cron = resolve(resolver, scheduled.cron());
        if (!cron.isEmpty()) {
            if (Scheduled.CRON_DISABLED.equals(cron)) {
                return Optional.empty();
            }
            String zone = resolve(resolver, scheduled.zone());
            return Optional.of(SpringCronSchedule.of(cron, zone.isEmpty() ? ZoneId.systemDefault() : ZoneId.of(zone)));
        }
        String rate = scheduled.fixedRate() >= 0
                ? Long.toString(scheduled.fixedRate())
                : resolve(resolver, scheduled.fixedRateString());
        return Optional.of(Schedule.fixedRate(parse(rate, scheduled, where)));
    }

    /**
     * The slot function of {@code scheduled} (its values resolved with {@code resolver}).
     *
     * @throws TenureConfigurationException naming {@code where} when the schedule has no slot shared by instances
     */
    static UnaryOperator<Instant> of(Scheduled scheduled, StringValueResolver resolver, String where) {
        String cron = resolve(resolver, scheduled.cron());
        if (!cron.isEmpty()) {
            return cron(cron, resolve(resolver, scheduled.zone()), where);
        }
        String rate = scheduled.fixedRate() >= 0
                ? Long.toString(scheduled.fixedRate())
                : resolve(resolver, scheduled.fixedRateString());
        if (!rate.isEmpty()) {
            return fixedRate(parse(rate, scheduled, where), where);
        }
        throw new TenureConfigurationException(
                where,
                "@Coordinated needs @Scheduled with cron or fixedRate: "
                        + "fixedDelay and one-time schedules have no slot that every instance names alike",
                "Schedule " + where + " with cron (and zone) or fixedRate.");
    }

    private static UnaryOperator<Instant> cron(String expression, String zoneName, String where) {
        if (Scheduled.CRON_DISABLED.equals(expression)) {
            return now -> {
                throw new IllegalStateException(where + " is not scheduled (cron \"-\"): it has no slot to coordinate");
            };
        }
        CronExpression cron;
        ZoneId zone;
        try {
            cron = CronExpression.parse(expression);
            zone = zoneName.isEmpty() ? ZoneId.systemDefault() : ZoneId.of(zoneName);
        } catch (IllegalArgumentException | DateTimeException e) {
            throw new TenureConfigurationException(
                    where,
                    "bad cron \"" + expression + "\" or zone \"" + zoneName + "\": " + e.getMessage(),
                    "Fix the @Scheduled cron or zone of " + where + ".");
        }
        CronWalk walk = new CronWalk(cron, zone);
        return now -> {
            Instant at = now.plus(EARLY);
            return walk.latestAtOrBefore(at)
                    .orElseThrow(() -> new IllegalStateException(
                            where + ": its cron has no time in the " + CronWalk.LONGEST_LOOK_BACK.toDays()
                                    + " days before " + at + ", so this fire has no slot"));
        };
    }

    private static UnaryOperator<Instant> fixedRate(Duration rate, String where) {
        if (rate.toMillis() < 1) {
            throw new TenureConfigurationException(
                    where,
                    "fixedRate " + rate + " is under a millisecond",
                    "Give " + where + " a fixedRate of 1 ms or more.");
        }
        long period = rate.toMillis();
        long early = Math.min(EARLY.toMillis(), period / 10);
        return now -> Instant.ofEpochMilli(Math.floorDiv(now.toEpochMilli() + early, period) * period);
    }

    private static Duration parse(String rate, Scheduled scheduled, String where) {
        try {
            return DurationStyle.detectAndParse(rate, scheduled.timeUnit().toChronoUnit());
        } catch (IllegalArgumentException e) {
            throw new TenureConfigurationException(
                    where,
                    "bad fixedRate \"" + rate + "\": " + e.getMessage(),
                    "Fix the @Scheduled fixedRate of " + where + ".");
        }
    }

    private static String resolve(StringValueResolver resolver, String value) {
        String resolved = value.isEmpty() ? value : resolver.resolveStringValue(value);
        return resolved == null ? "" : resolved.trim();
    }
}
