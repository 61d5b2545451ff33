package dev.tenure.db;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One MISSED record that stands for many fires: after a long outage the sweeper writes a run of fires that nobody ran as
 * one {@code job_run} row, whose fire key is {@code <first>..<last>} and whose error starts {@code "<fires> fires due
 * from <first> to <last> missed: "}. Views count such a record as {@code fires} missed fires and show it as one line,
 * not as one fire. Immutable.
 */
public record MissedSummary(long fires, Instant first, Instant last) {

    /** How the error of a summary record starts; its first group is the number of fires (SQL: the same pattern). */
    static final String ERROR_PREFIX = "^([0-9]{1,18}) fires due from ";

    private static final Pattern ERROR = Pattern.compile(ERROR_PREFIX);

    /** The summary that {@code fireKey} and {@code error} of a MISSED row make, or empty for a row of one fire. */
    public static Optional<MissedSummary> of(String fireKey, @Nullable String error) {
        int dots = fireKey.indexOf("..");
        if (dots < 1 || error == null) {
            return Optional.empty();
        }
        Matcher m = ERROR.matcher(error);
        if (!m.find()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new MissedSummary(
                    Long.parseLong(m.group(1)),
                    Instant.parse(fireKey.substring(0, dots)),
                    Instant.parse(fireKey.substring(dots + 2))));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** How many fires a MISSED row of {@code fireKey} and {@code error} stands for: a summary's count, else 1. */
    public static long firesOf(String fireKey, @Nullable String error) {
        return of(fireKey, error).map(MissedSummary::fires).orElse(1L);
    }

    /** One line for operators, e.g. {@code 11460 fires 2026-11-29T00:01:00Z..2026-12-06T23:00:00Z missed}. */
    public String line() {
        return fires + " fires " + first + ".." + last + " missed";
    }
}
