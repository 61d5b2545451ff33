package dev.tenure.testkit;

import dev.tenure.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Ticker} that moves only when a test moves it, so expiry and deadline logic can be tested without sleeping.
 *
 * <p>Thread-safe: any thread may read or move it. It does not enforce monotonicity: {@link #set(long)} may move time
 * backwards, which lets a test check how code copes with a misbehaving clock; {@link #advance(Duration)} rejects
 * negative steps.
 */
public final class SettableTicker implements Ticker {

    private final AtomicLong nanos;

    /** A ticker starting at 0 ns. */
    public SettableTicker() {
        this(0L);
    }

    /** A ticker starting at {@code startNanos}. */
    public SettableTicker(long startNanos) {
        this.nanos = new AtomicLong(startNanos);
    }

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    /**
     * Moves time forward by {@code step} and returns the new reading.
     *
     * @throws IllegalArgumentException if {@code step} is negative
     */
    public long advance(Duration step) {
        if (step.isNegative()) {
            throw new IllegalArgumentException("step must not be negative: " + step + " (use set() to go back)");
        }
        return nanos.addAndGet(step.toNanos());
    }

    /** Sets the reading to exactly {@code nanoTime}. */
    public void set(long nanoTime) {
        nanos.set(nanoTime);
    }

    @Override
    public String toString() {
        return "SettableTicker[" + nanos.get() + " ns]";
    }
}
