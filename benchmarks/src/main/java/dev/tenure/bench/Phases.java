package dev.tenure.bench;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Synchronises a run's threads: each calls {@link #ready()} after its untimed priming step and blocks until the
 * coordinator calls {@link #start}, which fixes the warm-up end and the measurement end for everyone.
 */
final class Phases {

    private final CountDownLatch ready;
    private final CountDownLatch go = new CountDownLatch(1);
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile long warmEnd;
    private volatile long end;

    Phases(int threads) {
        ready = new CountDownLatch(threads);
    }

    /** Called by each worker; returns once the timed phases have been scheduled. */
    void ready() {
        ready.countDown();
        boolean interrupted = false;
        while (true) {
            try {
                go.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Called by the coordinator: waits (bounded) for all workers, then starts warm-up now and measurement after it. */
    void start(Duration warmup, Duration measure, String what) throws InterruptedException {
        if (!ready.await(60, TimeUnit.SECONDS)) {
            System.out.println(
                    "# WARNING: " + ready.getCount() + " " + what + " threads not ready after 60 s; starting anyway");
        }
        long now = System.nanoTime();
        warmEnd = now + warmup.toNanos();
        end = warmEnd + measure.toNanos();
        go.countDown();
    }

    /**
     * Called by each worker after its loop: blocks (bounded) until the coordinator has closed the measured window, so
     * that the thread still exists when its CPU time is read from /proc (an exited thread's time vanishes there).
     */
    void finished() {
        try {
            closed.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Called by the coordinator once the window's measurements are taken: lets the workers end. */
    void windowClosed() {
        closed.countDown();
    }

    long warmEnd() {
        return warmEnd;
    }

    long end() {
        return end;
    }
}
