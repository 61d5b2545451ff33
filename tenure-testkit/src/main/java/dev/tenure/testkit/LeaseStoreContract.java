package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link LeaseStore} must have. A store's test extends this and provides the store; every
 * test uses fresh keys, so one store instance may serve the whole class. The nested {@link LeaseHandles} runs the
 * {@link LeaseContract} (lease handles over the same store: {@code Lease.extend}) with it.
 */
public abstract class LeaseStoreContract {

    /** The {@link LeaseContract} over this class's store. */
    @Nested
    class LeaseHandles extends LeaseContract {
        @Override
        protected LeaseStore store() {
            return LeaseStoreContract.this.store();
        }

        @Override
        protected String freshKey() {
            return LeaseStoreContract.this.freshKey();
        }
    }

    private static final Duration TTL = Duration.ofSeconds(10);

    /** The store under test (kept open across tests; the subclass closes it). */
    protected abstract LeaseStore store();

    /** Whether the store promises release notifications (default true). */
    protected boolean notifiesReleases() {
        return true;
    }

    protected String freshKey() {
        return "contract-" + UUID.randomUUID();
    }

    protected static <T> T get(CompletableFuture<T> f) {
        try {
            return f.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError("store call failed: " + e, e);
        }
    }

    private AcquireResult acquire(String key, String owner) {
        return get(store().tryAcquire(key, owner, TTL, false));
    }

    @Test
    void tryAcquire_free_grantsThenReportsHolderAndRemainingTime() {
        String key = freshKey();
        assertThat(acquire(key, "a")).isInstanceOf(AcquireResult.Acquired.class);
        AcquireResult second = acquire(key, "b");
        assertThat(second).isInstanceOf(AcquireResult.Held.class);
        AcquireResult.Held held = (AcquireResult.Held) second;
        assertThat(held.owner()).isEqualTo("a");
        assertThat(held.remaining()).isGreaterThan(Duration.ofSeconds(5)).isLessThanOrEqualTo(TTL); // unscaled: a TTL
    }

    @Test
    void renew_byNonOwner_changesNothing() {
        String key = freshKey();
        acquire(key, "a");
        assertThat(get(store().renew(key, "b", Duration.ofSeconds(60)))).isFalse();
        AcquireResult.Held held = (AcquireResult.Held) acquire(key, "c");
        assertThat(held.owner()).isEqualTo("a");
        assertThat(held.remaining()).isLessThanOrEqualTo(TTL);
    }

    @Test
    void release_byNonOwner_changesNothing() {
        String key = freshKey();
        acquire(key, "a");
        assertThat(get(store().release(key, "b"))).isFalse();
        assertThat(((AcquireResult.Held) acquire(key, "c")).owner()).isEqualTo("a");
    }

    @Test
    void release_byOwner_freesTheKey_onceOnly() {
        String key = freshKey();
        acquire(key, "a");
        assertThat(get(store().release(key, "a"))).isTrue();
        assertThat(get(store().release(key, "a"))).isFalse();
        assertThat(acquire(key, "b")).isInstanceOf(AcquireResult.Acquired.class);
    }

    @Test
    void renew_byOwner_extends() {
        String key = freshKey();
        get(store().tryAcquire(key, "a", Duration.ofSeconds(2), false));
        assertThat(get(store().renew(key, "a", Duration.ofSeconds(60)))).isTrue();
        assertThat(((AcquireResult.Held) acquire(key, "b")).remaining()).isGreaterThan(Duration.ofSeconds(30));
    }

    @Test
    void lease_expiresAfterTtl() {
        String key = freshKey();
        get(store().tryAcquire(key, "a", Duration.ofMillis(300), false));
        await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> acquire(key, "b") instanceof AcquireResult.Acquired);
        assertThat(get(store().renew(key, "a", TTL))).isFalse();
    }

    @Test
    void handOff_fromOwner_passesTheLease_fromOtherChangesNothing() {
        String key = freshKey();
        acquire(key, "a");
        assertThat(get(store().handOff(key, "x", "y", TTL, false))).isInstanceOf(AcquireResult.Held.class);
        assertThat(get(store().handOff(key, "a", "b", TTL, false))).isInstanceOf(AcquireResult.Acquired.class);
        assertThat(((AcquireResult.Held) acquire(key, "c")).owner()).isEqualTo("b");
        assertThat(get(store().release(key, "a"))).isFalse();
        assertThat(get(store().release(key, "b"))).isTrue();
    }

    @Test
    void fencingTokens_increaseWithEachGrant() {
        String key = freshKey();
        long previous = 0;
        for (int i = 0; i < 5; i++) {
            AcquireResult.Acquired a = (AcquireResult.Acquired) get(store().tryAcquire(key, "o" + i, TTL, true));
            long token = a.fencingToken().orElseThrow();
            assertThat(token).isGreaterThan(previous);
            previous = token;
            get(store().release(key, "o" + i));
        }
        AcquireResult.Acquired plain = (AcquireResult.Acquired) get(store().tryAcquire(key, "p", TTL, false));
        assertThat(plain.fencingToken()).isEmpty();
    }

    @Test
    void subscribeReleases_wakesOnRelease() throws Exception {
        if (!notifiesReleases()) {
            return;
        }
        String key = freshKey();
        AtomicInteger woken = new AtomicInteger();
        try (AutoCloseable sub = store().subscribeReleases(key, woken::incrementAndGet)) {
            acquire(key, "a");
            // the subscription is asynchronous: release repeatedly until one notification arrives; each round a
            // waiter first finds the key held, as a real waiter would (stores may notify only when someone waits)
            await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        assertThat(acquire(key, "waiter")).isInstanceOf(AcquireResult.Held.class);
                        get(store().release(key, "a"));
                        acquire(key, "a");
                        return woken.get() > 0;
                    });
        }
    }
}
