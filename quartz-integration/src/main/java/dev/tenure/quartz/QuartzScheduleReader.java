package dev.tenure.quartz;

import dev.tenure.Schedule;
import dev.tenure.spi.ScheduleReader;

/**
 * Reads {@code quartz} schedules (cron and simple triggers) from the ledger's text, so that the console, the CLI and
 * the health check of a process that did not register them count their overdue fires exactly (a
 * {@link java.util.ServiceLoader} provider). Stateless.
 */
public final class QuartzScheduleReader implements ScheduleReader {

    @Override
    public String kind() {
        return "quartz";
    }

    @Override
    public Schedule read(String expression) {
        return QuartzScheduleText.read(expression);
    }
}
