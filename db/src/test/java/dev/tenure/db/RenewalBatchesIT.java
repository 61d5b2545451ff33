package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.DatabaseConfig;
import dev.tenure.spi.AcquireResult;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Renewals that arrive together share statements ({@link RenewalBatches}), and each lease keeps its own owner check. */
class RenewalBatchesIT {

    private static Fixture fx;
    /** Reads the rows as committed, expired leases included. */
    private static LeaseRows rows;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(RenewalBatchesIT.class);
        rows = Fixture.rows(fx.pool, DatabaseConfig.defaults());
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void manyRenewalsAtOnce_extendOnlyTheLeasesOfTheirOwners() throws Exception {
        try (JdbcLeaseStore store = Fixture.store(fx.pool)) {
            String run = UUID.randomUUID().toString();
            int n = 3000; // three times the call queue: one statement per renewal would overflow it
            // the leases must outlive the 3,000 acquires before the renewals: a loaded machine took over 5 s for them
            Duration ttl = Timing.scaled(Duration.ofSeconds(30));
            Duration renewed = Duration.ofMinutes(10);
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String key = "batch-" + run + "-" + i;
                keys.add(key);
                assertThat(store.tryAcquire(key, "owner-" + i, ttl, false)
                                .get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                        .isInstanceOf(AcquireResult.Acquired.class);
            }
            Instant before = expiry(keys.get(0));
            List<CompletableFuture<Boolean>> mine = new ArrayList<>();
            List<CompletableFuture<Boolean>> foreign = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (i % 2 == 0) {
                    mine.add(store.renew(keys.get(i), "owner-" + i, renewed));
                } else {
                    foreign.add(store.renew(keys.get(i), "someone-else", renewed));
                }
            }
            for (CompletableFuture<Boolean> f : mine) {
                assertThat(f.get(Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS))
                        .isTrue();
            }
            for (CompletableFuture<Boolean> f : foreign) {
                assertThat(f.get(Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS))
                        .isFalse();
            }
            // a lease renewed by its owner runs 10 min; one "renewed" by someone else keeps its first TTL
            assertThat(Duration.between(before, expiry(keys.get(0))))
                    .isGreaterThan(renewed.minus(ttl).minusMinutes(1));
            assertThat(Duration.between(Instant.now(), expiry(keys.get(1)))).isLessThanOrEqualTo(ttl);
            assertThat(rows.read(keys.get(1)).orElseThrow().owner()).isEqualTo("owner-1");
        }
    }

    @Test
    void expiredLease_isNotRenewed_whileOthersInTheSameStatementAre() throws Exception {
        try (JdbcLeaseStore store = Fixture.store(fx.pool)) {
            String run = UUID.randomUUID().toString();
            String expiring = "expiring-" + run;
            store.tryAcquire(expiring, "a", Duration.ofMillis(100), false)
                    .get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
            List<String> live = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                live.add("live-" + run + "-" + i);
                store.tryAcquire(live.get(i), "b" + i, Timing.scaled(Duration.ofSeconds(30)), false)
                        .get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
            }
            Thread.sleep(300);
            CompletableFuture<Boolean> late = store.renew(expiring, "a", Duration.ofSeconds(60));
            List<CompletableFuture<Boolean>> others = new ArrayList<>();
            for (int i = 0; i < live.size(); i++) {
                others.add(store.renew(live.get(i), "b" + i, Duration.ofSeconds(60)));
            }
            assertThat(late.get(Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS))
                    .isFalse();
            for (CompletableFuture<Boolean> f : others) {
                assertThat(f.get(Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS))
                        .isTrue();
            }
        }
    }

    private static Instant expiry(String key) {
        return rows.read(key).orElseThrow().leaseExpiresAt();
    }
}
