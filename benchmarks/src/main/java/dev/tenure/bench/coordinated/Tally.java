package dev.tenure.bench.coordinated;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * What one node counts: units (an executed run, execution, fire or lock+insert+unlock pair), the attempts that did
 * not run, errors, the JDBC counters, and latency per unit. Counters are sampled at the window's two ends by
 * {@link #sampleAt}; latency is recorded only for units that began and ended inside the window. Thread-safe.
 */
final class Tally {

    final LongAdder units = new LongAdder();
    /** Attempts refused because another holder had the job or lock (tried again or moved on). */
    final LongAdder held = new LongAdder();
    /** Attempts of a fire that had already completed elsewhere (Tenure's SKIPPED_ALREADY_DONE). */
    final LongAdder done = new LongAdder();
    /** Runs that ended in any other status, and exceptions. */
    final LongAdder errors = new LongAdder();

    final JdbcCounts jdbc;
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final Histogram latency = new Histogram(3_600_000_000_000L, 3);
    private final Map<String, long[]> samples = new LinkedHashMap<>();
    private final long warmEnd;
    private final long end;

    Tally(long warmEnd, long end, JdbcCounts jdbc) {
        this.jdbc = jdbc;
        this.warmEnd = warmEnd;
        this.end = end;
    }

    /** Every unit and skipped attempt since the node started (priming runs not included). */
    long attemptsEver() {
        return units.sum() + held.sum() + done.sum();
    }

    long warmEnd() {
        return warmEnd;
    }

    long end() {
        return end;
    }

    /**
     * True until a short while after the window's end: workers keep going past it, so that the end's snapshot (counters,
     * per-thread CPU) sees a node in full stride, not one whose threads are already exiting.
     */
    boolean running() {
        return System.nanoTime() < end + GRACE_NANOS;
    }

    /** How long after the window's end the workers stop. */
    static final long GRACE_NANOS = 500_000_000L;

    /** One unit that took from {@code start} to {@code finish} (System.nanoTime). */
    void unit(long start, long finish) {
        units.increment();
        if (start >= warmEnd && finish <= end) {
            synchronized (latency) {
                latency.recordValue(Math.max(0, finish - start));
            }
        }
    }

    void error(String what) {
        errors.increment();
        firstError.compareAndSet(null, what);
    }

    String firstError() {
        return firstError.get();
    }

    Histogram latency() {
        synchronized (latency) {
            return latency.copy();
        }
    }

    /** Starts a daemon thread that samples every counter at the window's start and end. */
    void sampleAt() {
        Thread t = new Thread(
                () -> {
                    sleepUntil(warmEnd);
                    record("start");
                    sleepUntil(end);
                    record("end");
                },
                "tally-sampler");
        t.setDaemon(true);
        t.start();
    }

    private synchronized void record(String at) {
        samples.put(at, new long[] {
            units.sum(),
            held.sum(),
            done.sum(),
            errors.sum(),
            jdbc.executions.sum(),
            jdbc.commits.sum(),
            jdbc.rollbacks.sum()
        });
        notifyAll();
    }

    /** Counter deltas over the window, in the order units, held, done, errors, executions, commits, rollbacks. */
    synchronized long[] window() throws InterruptedException {
        while (!samples.containsKey("end")) {
            wait(100);
        }
        long[] a = samples.get("start");
        long[] b = samples.get("end");
        long[] d = new long[a.length];
        for (int i = 0; i < d.length; i++) {
            d[i] = b[i] - a[i];
        }
        return d;
    }

    static void sleepUntil(long nanoTime) {
        long left;
        while ((left = nanoTime - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }
}
