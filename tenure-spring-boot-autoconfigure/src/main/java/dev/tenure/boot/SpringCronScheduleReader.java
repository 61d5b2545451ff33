package dev.tenure.boot;

import dev.tenure.Schedule;
import dev.tenure.spi.ScheduleReader;

/**
 * Reads {@code spring-cron} schedules ({@code @Scheduled(cron = ...)} under {@code @Coordinated}) from the ledger's
 * text, so that the console, the CLI and the health check of a process that did not register them count their overdue
 * fires exactly (a {@link java.util.ServiceLoader} provider). Stateless.
 */
public final class SpringCronScheduleReader implements ScheduleReader {

    @Override
    public String kind() {
        return "spring-cron";
    }

    @Override
    public Schedule read(String expression) {
        return SpringCronSchedule.read(expression);
    }
}
