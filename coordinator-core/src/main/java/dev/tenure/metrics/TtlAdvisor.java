package dev.tenure.metrics;

import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;

/**
 * Proposes a lease TTL from the hold times seen recently: three times their 99th percentile, at least one
 * second. Without a watchdog, a TTL below the hold-time p99 means regular overlaps; with one, it bounds how
 * long a crashed holder blocks others. Thread-safe; keeps a fixed ring of the last {@code capacity} samples.
 */
public final class TtlAdvisor {

    private final long[] samples;
    private int next;
    private int size;

    public TtlAdvisor(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be positive (got " + capacity + ")");
        }
        this.samples = new long[capacity];
    }

    public synchronized void record(Duration hold) {
        samples[next] = hold.toNanos();
        next = (next + 1) % samples.length;
        size = Math.min(size + 1, samples.length);
    }

    /** The observed 99th percentile of hold times, if any were recorded. */
    public synchronized Optional<Duration> holdP99() {
        if (size == 0) {
            return Optional.empty();
        }
        long[] copy = Arrays.copyOf(samples, size);
        Arrays.sort(copy);
        return Optional.of(Duration.ofNanos(copy[(int) Math.ceil(size * 0.99) - 1]));
    }

    /** A TTL of 3 × hold p99, at least 1 s; empty until a hold was recorded. */
    public Optional<Duration> suggestedTtl() {
        return holdP99().map(p99 -> {
            Duration ttl = p99.multipliedBy(3);
            return ttl.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : ttl;
        });
    }
}
