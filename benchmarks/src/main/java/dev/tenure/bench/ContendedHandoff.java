package dev.tenure.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Scenario B: N threads contend for ONE key. Each acquisition ({@code lock(key, wait, ttl)}) holds the lock for
 * {@code hold} and releases it; the thread then immediately asks again. Measures critical sections per second,
 * timeouts, the hand-off gap (from the moment holder N calls unlock to the moment holder N+1's lock() returns),
 * fairness, mutual-exclusion violations and server-side commands per section.
 */
final class ContendedHandoff {

    /** {@code heldNanos}: the measured sections' time inside (lock() returned to unlock called), summed. */
    record Result(
            String driver,
            int threads,
            long sections,
            double seconds,
            Histogram gap,
            long timeouts,
            long errors,
            String firstError,
            long minPerThread,
            long maxPerThread,
            long regrabs,
            long violations,
            Window.Measured measured,
            Leftovers leftovers,
            long heldNanos) {

        Map<String, Long> commands() {
            return measured.commands();
        }

        double sectionsPerSecond() {
            return sections / seconds;
        }

        /**
         * Mean time inside a section: the hold plus the harness's own timer overshoot (parkNanos wakes late), the same
         * for every driver. No lock can run sections faster than one per this.
         */
        double meanHeldMicros() {
            return sections == 0 ? Double.NaN : heldNanos / 1e3 / sections;
        }
    }

    /** "(mean, p50, p99 in µs)" of a histogram of hand-off gaps recorded in nanoseconds. */
    static String gapSummary(Histogram h) {
        return String.format(
                Locale.ROOT,
                "(mean %.0f us, p50 %.0f us, p99 %.0f us)",
                h.getMean() / 1e3,
                h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(99) / 1e3);
    }

    /** The share of a window of {@code window} that the gaps of {@code h} took, in percent. */
    static double gapShareOfWindow(Histogram h, Duration window) {
        return 100.0 * h.getMean() * h.getTotalCount() / window.toNanos();
    }

    private static final class Worker {
        long sections;
        long heldNanos;
        long timeouts;
        long errors;
        String firstError;
    }

    private ContendedHandoff() {}

    static Result run(LockDriver driver, ValkeyAdmin admin, BenchConfig cfg) throws Exception {
        int threads = cfg.handoffThreads;
        String key = "handoff";
        long holdNanos = cfg.hold.toNanos();
        Phases phases = new Phases(threads);

        // Shared observation state. Only the current holder writes lastRelease/lastHolder/waitersAtRelease, and
        // the next holder reads them after its lock() returned, i.e. after the previous unlock completed.
        AtomicLong lastRelease = new AtomicLong(Long.MIN_VALUE);
        AtomicInteger lastHolder = new AtomicInteger(-1);
        AtomicInteger waitersAtRelease = new AtomicInteger();
        AtomicInteger waiting = new AtomicInteger();
        AtomicInteger inside = new AtomicInteger();
        AtomicLong violations = new AtomicLong();
        AtomicLong regrabs = new AtomicLong();
        Histogram gap = new Histogram(60_000_000_000L, 3);

        List<Worker> workers = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Worker w = new Worker();
            workers.add(w);
            int me = t;
            Thread th = new Thread(
                    () -> {
                        try {
                            // One untimed acquisition first (threads queue up for it): per-thread set-up stays out of
                            // the timed phases.
                            try {
                                LockDriver.Handle h = driver.lock(key, cfg.wait, cfg.ttl);
                                if (h != null) {
                                    driver.unlock(h);
                                }
                            } catch (Exception | Error e) {
                                w.firstError = "priming: " + e;
                            }
                            phases.ready();
                            long warmEnd = phases.warmEnd();
                            long end = phases.end();
                            while (System.nanoTime() < end) {
                                LockDriver.Handle h;
                                waiting.incrementAndGet();
                                long askedAt = System.nanoTime();
                                try {
                                    h = driver.lock(key, cfg.wait, cfg.ttl);
                                } catch (Exception | Error e) {
                                    if (askedAt >= warmEnd) {
                                        w.errors++;
                                    }
                                    if (w.firstError == null) {
                                        w.firstError = e.toString();
                                    }
                                    Poll.sleepNanos(1_000_000L);
                                    continue;
                                } finally {
                                    waiting.decrementAndGet();
                                }
                                long acquiredAt = System.nanoTime();
                                if (h == null) {
                                    if (askedAt >= warmEnd) {
                                        w.timeouts++;
                                    }
                                    continue;
                                }
                                if (inside.incrementAndGet() != 1) {
                                    violations.incrementAndGet();
                                }
                                boolean measured = acquiredAt >= warmEnd && acquiredAt < end;
                                if (measured) {
                                    w.sections++;
                                    long prev = lastRelease.get();
                                    if (prev != Long.MIN_VALUE && acquiredAt > prev) {
                                        synchronized (gap) {
                                            gap.recordValue(
                                                    Math.min(acquiredAt - prev, gap.getHighestTrackableValue()));
                                        }
                                    }
                                    if (lastHolder.get() == me && waitersAtRelease.get() > 0) {
                                        regrabs.incrementAndGet();
                                    }
                                }
                                Poll.sleepNanos(holdNanos);
                                inside.decrementAndGet();
                                lastHolder.set(me);
                                waitersAtRelease.set(waiting.get());
                                long releaseAt = System.nanoTime();
                                lastRelease.set(releaseAt);
                                if (measured) {
                                    w.heldNanos += releaseAt - acquiredAt;
                                }
                                try {
                                    driver.unlock(h);
                                } catch (Exception | Error e) {
                                    if (measured) {
                                        w.errors++;
                                    }
                                    if (w.firstError == null) {
                                        w.firstError = "unlock: " + e;
                                    }
                                }
                            }
                        } finally {
                            phases.finished();
                            done.countDown();
                        }
                    },
                    "handoff-" + driver.name() + "-" + t);
            th.setDaemon(true);
            th.start();
        }
        phases.start(cfg.warmup, cfg.handoffDuration, driver.name());
        Poll.sleepNanos(phases.warmEnd() - System.nanoTime());
        Window window = Window.open(admin);
        Poll.sleepNanos(phases.end() - System.nanoTime());
        Window.Measured measured;
        try {
            measured = window.close();
        } finally {
            phases.windowClosed();
        }
        if (!done.await(cfg.wait.toMillis() * 2 + 30_000, TimeUnit.MILLISECONDS)) {
            System.out.println(
                    "# WARNING: " + done.getCount() + " " + driver.name() + " threads still running after the run");
        }
        Leftovers leftovers = Leftovers.check(driver, admin, cfg, List.of(key), key);

        long sections = 0;
        long heldNanos = 0;
        long timeouts = 0;
        long errors = 0;
        long min = Long.MAX_VALUE;
        long max = 0;
        String firstError = null;
        for (Worker w : workers) {
            sections += w.sections;
            heldNanos += w.heldNanos;
            timeouts += w.timeouts;
            errors += w.errors;
            min = Math.min(min, w.sections);
            max = Math.max(max, w.sections);
            if (firstError == null) {
                firstError = w.firstError;
            }
        }
        return new Result(
                driver.name(),
                threads,
                sections,
                cfg.handoffDuration.toNanos() / 1e9,
                gap,
                timeouts,
                errors,
                firstError,
                min,
                max,
                regrabs.get(),
                violations.get(),
                measured,
                leftovers,
                heldNanos);
    }
}
