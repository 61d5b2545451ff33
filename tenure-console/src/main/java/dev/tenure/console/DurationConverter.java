package dev.tenure.console;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;

/** Reads {@code 500ms}, {@code 45s}, {@code 90m}, {@code 12h}, {@code 30d}, or ISO-8601 ({@code PT1H}, {@code P30D}). */
final class DurationConverter implements ITypeConverter<Duration> {

    private static final Pattern SHORT = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

    @Override
    public Duration convert(String value) {
        Matcher m = SHORT.matcher(value.trim());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(value.trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("'" + value + "' is not a duration: use e.g. 30d, 12h, 90m, 45s, 500ms "
                    + "or ISO-8601 (PT1H, P30D)");
        }
    }
}
