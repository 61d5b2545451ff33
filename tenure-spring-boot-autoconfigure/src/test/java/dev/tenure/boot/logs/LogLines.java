package dev.tenure.boot.logs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The log events of some loggers, as Logback (the backend on this module's test class path) hands them to its
 * appenders, with the MDC each one carried. Attach after a Boot application started: Boot resets Logback at start-up.
 */
public final class LogLines implements AutoCloseable {

    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final List<Logger> loggers = new ArrayList<>();
    private final List<Level> levels = new ArrayList<>();

    private LogLines(Level level, String... names) {
        appender.start();
        for (String name : names) {
            Logger l = (Logger) LoggerFactory.getLogger(name);
            loggers.add(l);
            levels.add(l.getLevel());
            l.setLevel(level);
            l.addAppender(appender);
        }
    }

    /** Captures the events of the loggers {@code names} (and their children) at {@code level} and above. */
    public static LogLines capture(Level level, String... names) {
        return new LogLines(level, names);
    }

    /** The MDC of every event captured so far whose message starts with {@code prefix}, in order. */
    public List<Map<String, String>> mdcOf(String prefix) {
        List<Map<String, String>> found = new ArrayList<>();
        synchronized (appender) {
            for (ILoggingEvent e : List.copyOf(appender.list)) {
                if (e.getFormattedMessage().startsWith(prefix)) {
                    found.add(Map.copyOf(e.getMDCPropertyMap()));
                }
            }
        }
        return found;
    }

    /** Every event captured so far as {@code LEVEL logger: message}, in order. */
    public List<String> lines() {
        List<String> found = new ArrayList<>();
        synchronized (appender) {
            for (ILoggingEvent e : List.copyOf(appender.list)) {
                found.add(e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage());
            }
        }
        return found;
    }

    @Override
    public void close() {
        for (int i = 0; i < loggers.size(); i++) {
            loggers.get(i).detachAppender(appender);
            loggers.get(i).setLevel(levels.get(i));
        }
        appender.stop();
    }
}
