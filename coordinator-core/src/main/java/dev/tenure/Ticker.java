package dev.tenure;

/**
 * A monotonic clock for deadlines, in nanoseconds from an arbitrary origin (like {@link System#nanoTime()}).
 * Injected wherever Tenure measures time, so tests can move time by hand instead of sleeping.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds since an arbitrary, fixed origin; never goes backwards. */
    long nanoTime();

    /** The system's monotonic clock. */
    static Ticker system() {
        return System::nanoTime;
    }
}
