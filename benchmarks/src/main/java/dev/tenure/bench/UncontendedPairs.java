package dev.tenure.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Scenario A: N threads, each looping acquire+release on its own key (no contention) for a fixed time after a
 * warm-up. Measures pairs/s and per-pair latency; server-side commands per pair; keys left behind.
 */
final class UncontendedPairs {

    record Result(
            String driver,
            int threads,
            long pairs,
            double seconds,
            Histogram latency,
            long notAcquired,
            long errors,
            String firstError,
            Window.Measured measured,
            Leftovers leftovers) {

        Map<String, Long> commands() {
            return measured.commands();
        }

        double pairsPerSecond() {
            return pairs / seconds;
        }
    }

    private static final class Worker {
        final Histogram latency = new Histogram(60_000_000_000L, 3);
        long pairs;
        long notAcquired;
        long errors;
        String firstError;
    }

    private UncontendedPairs() {}

    static Result run(LockDriver driver, ValkeyAdmin admin, BenchConfig cfg, int threads) throws Exception {
        Duration ttl = cfg.ttl;
        Phases phases = new Phases(threads);
        List<Worker> workers = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Worker w = new Worker();
            workers.add(w);
            String key = "pairs:" + threads + ":t" + t;
            keys.add(key);
            Thread th = new Thread(
                    () -> {
                        try {
                            // One untimed pair first: per-thread set-up (connections, registries, class loading) stays
                            // out of the timed phases.
                            try {
                                LockDriver.Handle h = driver.tryLock(key, ttl);
                                if (h != null) {
                                    driver.unlock(h);
                                }
                            } catch (Exception | Error e) {
                                w.firstError = "priming pair: " + e;
                            }
                            phases.ready();
                            long warmEnd = phases.warmEnd();
                            long end = phases.end();
                            while (true) {
                                long t0 = System.nanoTime();
                                if (t0 >= end) {
                                    break;
                                }
                                boolean measured = t0 >= warmEnd;
                                try {
                                    LockDriver.Handle h = driver.tryLock(key, ttl);
                                    if (h == null) {
                                        if (measured) {
                                            w.notAcquired++;
                                        }
                                        Poll.sleepNanos(1_000_000L); // own key busy: a leftover or a broken driver
                                        continue;
                                    }
                                    driver.unlock(h);
                                    long t1 = System.nanoTime();
                                    if (measured) {
                                        w.pairs++;
                                        w.latency.recordValue(Math.min(t1 - t0, w.latency.getHighestTrackableValue()));
                                    }
                                } catch (Exception | Error e) {
                                    if (measured) {
                                        w.errors++;
                                    }
                                    if (w.firstError == null) {
                                        w.firstError = e.toString();
                                    }
                                    Poll.sleepNanos(1_000_000L);
                                }
                            }
                        } finally {
                            phases.finished();
                            done.countDown();
                        }
                    },
                    "pairs-" + driver.name() + "-" + t);
            th.setDaemon(true);
            th.start();
        }
        phases.start(cfg.warmup, cfg.pairsDuration, driver.name());
        Poll.sleepNanos(phases.warmEnd() - System.nanoTime());
        Window window = Window.open(admin);
        Poll.sleepNanos(phases.end() - System.nanoTime());
        Window.Measured measured;
        try {
            measured = window.close();
        } finally {
            phases.windowClosed();
        }
        if (!done.await(cfg.requestTimeout.toMillis() * 5 + 30_000, TimeUnit.MILLISECONDS)) {
            System.out.println(
                    "# WARNING: " + done.getCount() + " " + driver.name() + " threads still running after the run");
        }
        Leftovers leftovers = Leftovers.check(driver, admin, cfg, keys, "pairs:" + threads + ":");

        Histogram all = new Histogram(60_000_000_000L, 3);
        long pairs = 0;
        long notAcq = 0;
        long errors = 0;
        String firstError = null;
        for (Worker w : workers) {
            all.add(w.latency);
            pairs += w.pairs;
            notAcq += w.notAcquired;
            errors += w.errors;
            if (firstError == null) {
                firstError = w.firstError;
            }
        }
        return new Result(
                driver.name(),
                threads,
                pairs,
                cfg.pairsDuration.toNanos() / 1e9,
                all,
                notAcq,
                errors,
                firstError,
                measured,
                leftovers);
    }
}
