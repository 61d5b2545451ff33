package dev.tenure;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential back-off with full jitter: attempt n sleeps a uniform random time in [min, min(max, base·2^n)].
 * The small floor keeps a waiter from spinning when the random draw is near zero.
 */
final class Backoff {

    private static final long BASE_NANOS = 2_000_000L;
    private static final long MAX_NANOS = 500_000_000L;
    private static final long FLOOR_NANOS = 1_000_000L;

    private int attempt;

    long nextNanos() {
        long cap = Math.min(MAX_NANOS, BASE_NANOS << Math.min(attempt++, 20));
        return FLOOR_NANOS + ThreadLocalRandom.current().nextLong(Math.max(1, cap - FLOOR_NANOS));
    }
}
