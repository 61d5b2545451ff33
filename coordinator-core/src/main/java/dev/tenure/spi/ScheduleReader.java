package dev.tenure.spi;

import dev.tenure.Schedule;
import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Function;

/**
 * Reads schedules of one kind back from the text the ledger stores ({@link Schedule#expression()}), for a process that
 * did not register them: the ops console, the CLI and the health check of any instance count a stopped application's
 * overdue fires exactly with it. A module that brings a kind of schedule provides one through {@link ServiceLoader}
 * ({@code META-INF/services/dev.tenure.spi.ScheduleReader}): the Spring Boot auto-configuration for {@code spring-cron},
 * the Quartz integration for {@code quartz}. Implementations are stateless and thread-safe.
 */
public interface ScheduleReader {

    /** The kind this reads, as {@link Schedule#kind()} names it, e.g. {@code spring-cron}. */
    String kind();

    /**
     * The schedule whose {@link Schedule#expression()} is {@code expression}.
     *
     * @throws IllegalArgumentException for text it cannot read
     */
    Schedule read(String expression);

    /**
     * The readers on {@code loader}'s class path, by kind (the first one found for a kind wins). A provider that fails
     * to load (its library is missing from the class path) is left out.
     */
    static Map<String, Function<String, Schedule>> onClassPath(ClassLoader loader) {
        Map<String, Function<String, Schedule>> out = new HashMap<>();
        var it = ServiceLoader.load(ScheduleReader.class, loader).iterator();
        // bounded: after a provider that fails, the iterator makes a best effort to go on to the next one
        for (int i = 0; i < 100; i++) {
            ScheduleReader r;
            try {
                if (!it.hasNext()) {
                    break;
                }
                r = it.next();
            } catch (java.util.ServiceConfigurationError | LinkageError e) {
                continue; // e.g. the Quartz integration without Quartz: that kind stays unread here
            }
            out.putIfAbsent(r.kind(), r::read);
        }
        return out;
    }
}
