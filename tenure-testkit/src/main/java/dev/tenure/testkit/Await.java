package dev.tenure.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition until it holds or a deadline passes; exceptions from the condition count as "not yet". */
final class Await {

    private static final long POLL_MILLIS = 25;

    private Await() {}

    static void until(Duration timeout, Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (true) {
            try {
                if (condition.getAsBoolean()) {
                    return;
                }
            } catch (RuntimeException e) {
                last = e;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(
                        "timed out after " + timeout.toMillis() + " ms waiting for " + what.get()
                                + (last == null ? "" : " (last error: " + last.getMessage() + ")"),
                        last);
            }
            sleep(POLL_MILLIS);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", e);
        }
    }
}
