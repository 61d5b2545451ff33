package dev.tenure.db;

import org.junit.jupiter.api.Test;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;

class ScratchIT {
    @Test
    void probe() throws Exception {
        try (Fixture fx = Fixture.forClass(ScratchIT.class)) {
            fx.execute(ClaimLoop.COUNTER_DDL);
            JobLedger ledger = fx.ledger;
            Map<String, AtomicLong> faults = new ConcurrentHashMap<>();
            AtomicLong claims = new AtomicLong(), claimNanos = new AtomicLong(), maxClaim = new AtomicLong();
            long deadline = System.nanoTime() + 5_000_000_000L;
            ExecutorService ex = Executors.newFixedThreadPool(16);
            for (int t = 0; t < 16; t++) {
                int tt = t;
                ex.execute(() -> {
                    int n = 0;
                    while (System.nanoTime() < deadline) {
                        long s = System.nanoTime();
                        try {
                            ClaimResult r = ledger.claim("k", "o" + tt + "-" + n++, Duration.ofSeconds(1));
                            long d = System.nanoTime() - s;
                            claims.incrementAndGet(); claimNanos.addAndGet(d); maxClaim.accumulateAndGet(d, Math::max);
                            if (r instanceof ClaimResult.Claimed c) {
                                ledger.release("k", c.epoch());
                            } else {
                                Thread.sleep(1);
                            }
                        } catch (Exception e) {
                            faults.computeIfAbsent(e.getMessage().substring(0, Math.min(150, e.getMessage().length())), k -> new AtomicLong()).incrementAndGet();
                        }
                    }
                });
            }
            ex.shutdown(); ex.awaitTermination(30, TimeUnit.SECONDS);
            System.out.println("claims " + claims + " avg us " + claimNanos.get() / Math.max(1, claims.get()) / 1000 + " max ms " + maxClaim.get() / 1_000_000);
            faults.forEach((k, v) -> System.out.println("FAULT " + v + " " + k));
            System.out.println(fx.query("select fencing_token from tenure.job_execution"));
        }
    }
}
