package dev.tenure.bench;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/** Fixed-interval polling used by drivers whose library has no waiting acquire (ShedLock, textbook GLIDE). */
public final class Poll {

    private Poll() {}

    @FunctionalInterface
    public interface Attempt {
        LockDriver.Handle tryOnce() throws Exception;
    }

    /** Calls {@code attempt} until it returns a handle or {@code wait} elapses, sleeping {@code interval} between tries. */
    public static LockDriver.Handle until(Attempt attempt, Duration wait, Duration interval) throws Exception {
        long deadline = System.nanoTime() + wait.toNanos();
        long pause = Math.max(1, interval.toNanos());
        while (true) {
            LockDriver.Handle h = attempt.tryOnce();
            if (h != null) {
                return h;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            sleepNanos(Math.min(pause, left));
        }
    }

    /** Sleeps at least {@code nanos} (parkNanos may return early). */
    public static void sleepNanos(long nanos) {
        long end = System.nanoTime() + nanos;
        long left = nanos;
        while (left > 0) {
            LockSupport.parkNanos(left);
            left = end - System.nanoTime();
        }
    }
}
