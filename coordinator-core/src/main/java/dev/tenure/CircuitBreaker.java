package dev.tenure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Opens after {@code threshold} consecutive failures and stays open for {@code openFor}; then lets calls try
 * again (half-open): one success closes it, one failure opens it again. Thread-safe.
 */
final class CircuitBreaker {

    /** Failures in a row that open a fallback breaker by default. */
    static final int DEFAULT_FAILURES = 2;
    /** How long a fallback breaker stays open by default. */
    static final Duration DEFAULT_OPEN_FOR = Duration.ofSeconds(5);

    private final int threshold;
    private final long openForNanos;
    private final Ticker ticker;
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicLong openUntil = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong opened = new AtomicLong();

    public CircuitBreaker(int threshold, Duration openFor, Ticker ticker) {
        check(threshold, openFor);
        this.threshold = threshold;
        this.openForNanos = openFor.toNanos();
        this.ticker = ticker;
    }

    /** Validates the knobs of a fallback breaker (the builders' {@code fallbackBreaker(failures, openFor)}). */
    static void check(int failures, Duration openFor) {
        if (failures < 1 || openFor == null || openFor.isNegative() || openFor.isZero()) {
            throw new IllegalArgumentException("fallbackBreaker needs failures >= 1 and a positive openFor (got "
                    + failures + ", " + openFor + ")");
        }
    }

    /** True while open: calls should not be tried. */
    public boolean isOpen() {
        long until = openUntil.get();
        return until != Long.MIN_VALUE && ticker.nanoTime() < until;
    }

    public void success() {
        failures.set(0);
        openUntil.set(Long.MIN_VALUE);
    }

    /** Counts a failure; true if it opened the breaker (again). */
    public boolean failure() {
        long now = ticker.nanoTime();
        boolean halfOpen = openUntil.get() != Long.MIN_VALUE && now >= openUntil.get();
        if (failures.incrementAndGet() >= threshold || halfOpen) {
            openUntil.set(now + openForNanos);
            opened.incrementAndGet();
            return true;
        }
        return false;
    }

    /** How long it stays open. */
    Duration openFor() {
        return Duration.ofNanos(openForNanos);
    }

    /** How many times it has opened. */
    public long timesOpened() {
        return opened.get();
    }
}
