package dev.tenure.testkit;

import java.time.Duration;

/**
 * Scales test timeouts by one factor, so slow machines (a loaded CI box) can stretch every wait at once instead of
 * flaking. The factor comes from the system property {@value #PROPERTY} (default {@code 1.0}) and is read on every call.
 *
 * <p>Every wait inside the test kit (server start, replica sync, cluster formation) goes through this class, and
 * {@link JvmProcess} passes the property on to the child JVMs it starts. Thread-safe; stateless.
 */
public final class Timing {

    /** The system property holding the multiplier, e.g. {@code -Dtenure.test.timing.multiplier=3}. */
    public static final String PROPERTY = "tenure.test.timing.multiplier";

    private Timing() {}

    /**
     * The current multiplier.
     *
     * @throws IllegalArgumentException if the property is not a positive number
     */
    public static double multiplier() {
        String raw = System.getProperty(PROPERTY, "1.0").trim();
        double value;
        try {
            value = Double.parseDouble(raw);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(PROPERTY + " must be a positive number, got '" + raw + "'", e);
        }
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(PROPERTY + " must be a positive number, got '" + raw + "'");
        }
        return value;
    }

    /** {@code base} times the multiplier, rounded to the millisecond (at least 1 ms for a positive base). */
    public static Duration scaled(Duration base) {
        if (base.isNegative()) {
            throw new IllegalArgumentException("base must not be negative: " + base);
        }
        if (base.isZero()) {
            return base;
        }
        return Duration.ofMillis(Math.max(1, Math.round(base.toMillis() * multiplier())));
    }

    /** {@link #scaled(Duration)} in milliseconds. */
    public static long scaledMillis(long baseMillis) {
        return scaled(Duration.ofMillis(baseMillis)).toMillis();
    }
}
