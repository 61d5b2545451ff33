package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Store calls whose outcome is unknown: the engine's clean-up (release-if-mine of the owner id the call used) must
 * free what the call may have granted, and must never release a lease granted to someone who still holds it.
 */
class UnknownOutcomeTest {

    private static final String KEY = "unknown";
    private static final LeaseOptions LONG = LeaseOptions.ofTtl(Duration.ofSeconds(30));

    private final FaultyLeaseStore inner = new FaultyLeaseStore(Ticker.system());
    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private Leases leases;
    private Leases other;

    @AfterEach
    void close() {
        pool.shutdownNow();
        if (other != null) {
            other.close();
        }
        if (leases != null) {
            leases.close();
        }
    }

    /**
     * The hand-off applies in the store but its answer is lost, and the clean-up of the handed-to owner id lands
     * after the waiter's next attempt. The store grants again to an owner that already holds the key (as the JDBC
     * store's claim does), so a waiter retrying under the same id would be granted, then lose its lease to the clean-up.
     */
    @Test
    void handOffOutcomeUnknown_waiterRetriesUnderFreshOwner_lateCleanUpLeavesItsLeaseHeld() throws Exception {
        AtomicReference<String> handedTo = new AtomicReference<>();
        CompletableFuture<Void> attemptAfterHandOff = new CompletableFuture<>();
        CountDownLatch cleanedUp = new CountDownLatch(1);
        LeaseStore store = new DelegatingLeaseStore(inner) {
            @Override
            public CompletableFuture<AcquireResult> handOff(
                    String key, String from, String to, Duration ttl, boolean token) {
                inner.handOff(key, from, to, ttl, token).join();
                handedTo.set(to);
                return CompletableFuture.failedFuture(
                        new LeaseStoreUnavailableException("hand-off answer lost (test)", key, null));
            }

            @Override
            public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean token) {
                CompletableFuture<AcquireResult> r = grantAgainToHolder(key, owner, ttl, token);
                if (handedTo.get() != null) {
                    attemptAfterHandOff.complete(null);
                }
                return r;
            }

            @Override
            public CompletableFuture<Boolean> release(String key, String owner) {
                if (!owner.equals(handedTo.get())) {
                    return inner.release(key, owner);
                }
                return attemptAfterHandOff
                        .thenCompose(x -> inner.release(key, owner))
                        .whenComplete((ok, err) -> cleanedUp.countDown());
            }
        };
        leases = Leases.builder(store).build();
        Lease first = leases.tryAcquire(KEY, LONG).orElseThrow();
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        Future<Optional<Lease>> waiting = pool.submit(() -> {
            waiterThread.set(Thread.currentThread());
            return leases.acquire(KEY, Duration.ofSeconds(20), LONG);
        });
        await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                .until(() -> AcquireInterruptTest.parkedWaiting(waiterThread.get()));

        assertThat(first.release()).isEqualTo(ReleaseResult.UNCONFIRMED);
        Lease second =
                waiting.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(cleanedUp.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                .as("the clean-up of the handed-to owner ran")
                .isTrue();

        assertThat(inner.holder(KEY))
                .as("the store still holds the waiter's lease after the clean-up")
                .hasValue(second.owner());
        other = Leases.builder(store).ownsStore(false).build();
        assertThat(other.tryAcquire(KEY, LONG)).as("a second holder").isEmpty();
        assertThat(second.owner()).isNotEqualTo(handedTo.get());
        assertThat(second.release()).isEqualTo(ReleaseResult.RELEASED);
    }

    /**
     * The acquire's answer is lost and its grant lands only after the clean-up's first release-if-mine found nothing
     * (on the JDBC store: the claim was still waiting for a row lock). The clean-up looks once more after the store's
     * longest call, so the key is free long before the grant's TTL (30 s) ends.
     */
    @Test
    void acquireOutcomeUnknown_grantLandsAfterFirstCleanUp_freedAfterTheStoresLongestCall() throws Exception {
        LateGrant late = lateGrant(Duration.ofMillis(300), Duration.ofSeconds(5));
        assertThat(late.freedAfter()).isLessThan(Timing.scaled(Duration.ofSeconds(3)));
    }

    /** A store that cannot say how long its calls take: the engine waits its own call timeout before looking again. */
    @Test
    void acquireOutcomeUnknown_storeKnowsNoLongestCall_looksAgainAfterTheEngineCallTimeout() throws Exception {
        LateGrant late = lateGrant(Duration.ZERO, Duration.ofSeconds(1));
        assertThat(late.heldAfter300ms()).isTrue();
        assertThat(late.freedAfter()).isLessThan(Timing.scaled(Duration.ofSeconds(4)));
    }

    /**
     * The caller is interrupted while its acquire runs on in the store (a leader election stopping during a claim that
     * waits for a row lock), and the grant lands after the first release-if-mine found nothing: it is given back as it
     * lands, not when the clean-up looks again after the store's longest call (30 s here).
     */
    @Test
    void acquireInterruptedInFlight_grantLandsLater_isGivenBackAsItLands() throws Exception {
        AtomicReference<String> sentBy = new AtomicReference<>();
        CompletableFuture<AcquireResult> answer = new CompletableFuture<>();
        LeaseStore store = new DelegatingLeaseStore(inner) {
            @Override
            public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean token) {
                sentBy.set(owner);
                return answer;
            }

            @Override
            public Duration longestCall() {
                return Duration.ofSeconds(30);
            }
        };
        leases = Leases.builder(store).callTimeout(Duration.ofSeconds(30)).build();
        Future<Object> caller = pool.submit(() -> leases.tryAcquire(KEY, LONG));
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> sentBy.get() != null);
        pool.shutdownNow(); // interrupts the caller while its acquire is in flight
        assertThatThrownBy(caller::get).hasCauseInstanceOf(LeaseOutcomeUnknownException.class);
        LockSupport.parkNanos(Duration.ofMillis(200).toNanos()); // the first release-if-mine has found nothing
        answer.complete(inner.tryAcquire(KEY, sentBy.get(), LONG.ttl(), false).join()); // the grant lands now
        long landed = System.nanoTime();
        await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> inner.holder(KEY).isEmpty());
        assertThat(Duration.ofNanos(System.nanoTime() - landed)).isLessThan(Timing.scaled(Duration.ofSeconds(1)));
    }

    private record LateGrant(boolean heldAfter300ms, Duration freedAfter) {}

    private LateGrant lateGrant(Duration longestCall, Duration callTimeout) throws Exception {
        AtomicReference<String> sentBy = new AtomicReference<>();
        CountDownLatch granted = new CountDownLatch(1);
        LeaseStore store = new DelegatingLeaseStore(inner) {
            @Override
            public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean token) {
                if (!sentBy.compareAndSet(null, owner)) {
                    return inner.tryAcquire(key, owner, ttl, token);
                }
                return CompletableFuture.failedFuture(
                        new LeaseStoreUnavailableException("no answer (test)", key, null));
            }

            @Override
            public CompletableFuture<Boolean> release(String key, String owner) {
                CompletableFuture<Boolean> r = inner.release(key, owner);
                if (owner.equals(sentBy.get()) && granted.getCount() > 0) {
                    inner.tryAcquire(key, owner, LONG.ttl(), false).join(); // the lost acquire commits just now
                    granted.countDown();
                }
                return r;
            }

            @Override
            public Duration longestCall() {
                return longestCall;
            }
        };
        leases = Leases.builder(store).callTimeout(callTimeout).build();
        long sent = System.nanoTime();
        assertThatThrownBy(() -> leases.tryAcquire(KEY, LONG)).isInstanceOf(LeaseOutcomeUnknownException.class);
        assertThat(granted.await(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                .as("the late grant landed after the first clean-up")
                .isTrue();
        assertThat(inner.holder(KEY)).hasValue(sentBy.get());
        LockSupport.parkNanos(Duration.ofMillis(300).toNanos());
        boolean heldAfter300ms = inner.holder(KEY).isPresent();
        await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                .until(() -> inner.holder(KEY).isEmpty());
        Duration freedAfter = Duration.ofNanos(System.nanoTime() - sent);
        other = Leases.builder(store).ownsStore(false).build();
        assertThat(other.tryAcquire(KEY, LONG)).isPresent();
        return new LateGrant(heldAfter300ms, freedAfter);
    }

    /** Like the JDBC store's claim ({@code OR owner = ?}): an owner that holds the key live is granted it again. */
    private CompletableFuture<AcquireResult> grantAgainToHolder(String key, String owner, Duration ttl, boolean token) {
        if (inner.holder(key).filter(owner::equals).isPresent()) {
            long t = inner.takeOver(key, owner, ttl);
            return CompletableFuture.completedFuture(AcquireResult.acquired(token ? t : 0));
        }
        return inner.tryAcquire(key, owner, ttl, token);
    }
}
