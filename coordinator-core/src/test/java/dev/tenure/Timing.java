package dev.tenure;

import java.time.Duration;

/**
 * The test kit's {@code dev.tenure.testkit.Timing} for this module's own tests, which cannot depend on the test kit (the
 * test kit depends on this module). It reads the same system property, {@code tenure.test.timing.multiplier}, and
 * rounds the same way, so one multiplier stretches every wait of every module.
 */
final class Timing {

    private static final String PROPERTY = "tenure.test.timing.multiplier";

    private Timing() {}

    /** {@code base} times the multiplier, rounded to the millisecond (at least 1 ms for a positive base). */
    static Duration scaled(Duration base) {
        double multiplier =
                Double.parseDouble(System.getProperty(PROPERTY, "1.0").trim());
        if (!(multiplier > 0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException(PROPERTY + " must be a positive number, got " + multiplier);
        }
        return base.isZero() ? base : Duration.ofMillis(Math.max(1, Math.round(base.toMillis() * multiplier)));
    }

    /** {@link #scaled(Duration)} in milliseconds. */
    static long scaledMillis(long baseMillis) {
        return scaled(Duration.ofMillis(baseMillis)).toMillis();
    }
}
