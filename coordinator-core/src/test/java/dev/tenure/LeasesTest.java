package dev.tenure;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

class LeasesTest {

    private final InMemoryLeaseStore store = new InMemoryLeaseStore(Ticker.system());
    private Leases leases;

    @AfterEach
    void close() {
        if (leases != null) {
            leases.close();
        }
    }

    private int contend(int threads, int rounds, int maxLocalHandOffs) throws Exception {
        leases = Leases.builder(store).maxLocalHandOffs(maxLocalHandOffs).build();
        int[] counter = {0};
        AtomicInteger timeouts = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> fs = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            fs.add(pool.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    Optional<Lease> l = leases.acquire("hot", Duration.ofSeconds(5), leases.defaults());
                    if (l.isEmpty()) {
                        timeouts.incrementAndGet();
                        continue;
                    }
                    try (Lease lease = l.get()) {
                        int v = counter[0];
                        LockSupport.parkNanos(200_000);
                        counter[0] = v + 1;
                    }
                }
            }));
        }
        for (Future<?> f : fs) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(timeouts).hasValue(0);
        return counter[0];
    }

    @Test
    void acquire_contendedWithHandOff_noLostUpdates() throws Exception {
        assertThat(contend(8, 50, 16)).isEqualTo(400);
    }

    @Test
    void acquire_contendedWithoutHandOff_noLostUpdates() throws Exception {
        long t0 = System.nanoTime();
        assertThat(contend(2, 50, 0)).isEqualTo(100);
        System.out.println("took ms " + (System.nanoTime() - t0) / 1_000_000);
    }
}
