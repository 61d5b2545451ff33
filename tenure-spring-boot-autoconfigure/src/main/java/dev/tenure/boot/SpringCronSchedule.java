package dev.tenure.boot;

import dev.tenure.Schedule;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
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

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        ZonedDateTime next = expressionParsed.next(after.atZone(zone));
        return Optional.ofNullable(next).map(ZonedDateTime::toInstant);
    }
}
