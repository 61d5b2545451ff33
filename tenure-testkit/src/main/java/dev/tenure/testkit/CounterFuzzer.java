package dev.tenure.testkit;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The concurrency fuzzer: threads, and other processes through a main of the store's tests, increment one counter
 * kept in a plain file, read and written without any synchronisation, each increment under a lease on one key. Without
 * mutual exclusion increments are lost; with it the file ends at exactly the number of increments.
 */
public final class CounterFuzzer {

    private CounterFuzzer() {}

    /** Creates the counter file at 0. */
    public static Path newCounter(Path dir) {
        try {
            Path p = Files.createTempFile(dir, "counter", ".txt");
            Files.writeString(p, "0");
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static int read(Path counter) {
        try {
            return Integer.parseInt(
                    Files.readString(counter, StandardCharsets.US_ASCII).trim());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path counter, int value) {
        try {
            Files.writeString(counter, Integer.toString(value), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs {@code threads} threads that together make {@code increments} increments under leases on {@code key}.
     * Returns how many increments were made (an acquire that timed out is retried, so normally all of them).
     */
    public static int hammer(Leases leases, String key, Path counter, int threads, int increments) throws Exception {
        AtomicInteger remaining = new AtomicInteger(increments);
        AtomicInteger done = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            fs.add(pool.submit(() -> {
                while (remaining.getAndDecrement() > 0) {
                    Optional<Lease> held = Optional.empty();
                    while (held.isEmpty()) {
                        held = leases.acquire(key, Duration.ofSeconds(30), LeaseOptions.ofTtl(Duration.ofSeconds(10)));
                    }
                    try (Lease lease = held.get()) {
                        int v = read(counter);
                        Thread.onSpinWait();
                        write(counter, v + 1);
                        done.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        try {
            for (Future<?> f : fs) {
                f.get(Timing.scaledMillis(300_000), TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return done.get();
    }
}
