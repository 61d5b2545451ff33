package dev.tenure.boot;

import dev.tenure.Schedule;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Objects;
import java.util.Optional;
import org.springframework.scheduling.support.CronExpression;

/**
 * The schedule of a {@code @Scheduled(cron = ..., zone = ...)} method, read with Spring's own {@link CronExpression},
 * so its fire times are the slots that {@code @Coordinated} computes for the method's fires. Immutable.
 */
record SpringCronSchedule(String cron, ZoneId zone, CronExpression expressionParsed) implements Schedule {

    SpringCronSchedule {
        Objects.requireNonNull(cron, "cron");
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(expressionParsed, "expressionParsed");
    }

    /** @throws IllegalArgumentException if {@code cron} is not a valid Spring cron expression */
    static SpringCronSchedule of(String cron, ZoneId zone) {
        return new SpringCronSchedule(cron, zone, CronExpression.parse(cron));
    }

    @Override
    public String kind() {
        return "spring-cron";
    }

    @Override
    public String expression() {
        return cron + " (" + zone.getId() + ")";
    }

    /** Reads {@code <cron> (<zone>)}, as {@link #expression()} writes it. */
    @Override
    public Optional<java.util.function.Function<String, Schedule>> reader() {
        return Optional.of(SpringCronSchedule::read);
    }

    /**
     * A schedule from its {@link #expression()}.
     *
     * @throws IllegalArgumentException if the text is not {@code <cron> (<zone>)} with a valid cron and zone
     */
    static SpringCronSchedule read(String expression) {
        int open = expression.lastIndexOf(" (");
        if (open < 0 || !expression.endsWith(")")) {
            throw new IllegalArgumentException(
                    "not a Spring cron schedule: '" + expression + "' (expected " + "'<cron> (<zone>)')");
        }
        try {
            return of(
                    expression.substring(0, open), ZoneId.of(expression.substring(open + 2, expression.length() - 1)));
        } catch (java.time.DateTimeException e) {
            throw new IllegalArgumentException(
                    "not a Spring cron schedule: '" + expression + "': " + e.getMessage(), e);
        }
    }

    /**
     * The first time strictly after {@code after}, also where Spring's own {@code next} does not move forward
     * ({@link CronWalk}).
     *
     * @throws IllegalStateException if no answer is found within {@link CronWalk#MAX_STEPS} steps
     */
    @Override
    public Optional<Instant> nextAfter(Instant after) {
        return new CronWalk(expressionParsed, zone).nextAfter(after);
    }
}
