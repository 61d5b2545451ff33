package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.spi.AcquireResult;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** {@link Lease#extend} on a settable ticker: what it changes in the store and locally, and what it leaves alone. */
class LeaseExtendTest {

    private static final String KEY = "ext";

    private final AtomicLong time = new AtomicLong(1_000_000_000L);
    private final Ticker manual = time::get;
    private final FaultyLeaseStore inner = new FaultyLeaseStore(manual);
    private final GatedRenewals store = new GatedRenewals(inner);
    private Leases leases;

    @AfterEach
    void close() {
        if (leases != null) {
            leases.close();
        }
    }

    private Lease acquire(LeaseOptions options) {
        leases = Leases.builder(store)
                .ticker(manual)
                .callTimeout(Duration.ofSeconds(1))
                .build();
        return leases.tryAcquire(KEY, options).orElseThrow();
    }

    private void advance(Duration d) {
        time.addAndGet(d.toNanos()); // the watchdog looks at least every 50 ms
    }

    /** What another owner finds in the store: the lease's holder and how long the store keeps it. */
    private AcquireResult.Held heldInStore() {
        return (AcquireResult.Held)
                inner.tryAcquire(KEY, "other", Duration.ofSeconds(1), false).join();
    }

    private static Duration ttlMinusDefaultMargin(Duration ttl) {
        return ttl.minus(ttl.dividedBy(100).plusMillis(2));
    }

    @Nested
    class Extended {

        @Test
        void extend_longer_storeKeepsLeaseForNewTtlAndDeadlineFollows() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(3)));
            advance(Duration.ofMillis(500));
            assertThat(lease.extend(Duration.ofSeconds(60))).isEqualTo(ExtendResult.EXTENDED);
            assertThat(lease.remaining()).isEqualTo(ttlMinusDefaultMargin(Duration.ofSeconds(60)));
            advance(Duration.ofSeconds(10)); // far past the old TTL, before the next renewal is due
            AcquireResult.Held held = heldInStore();
            assertThat(held.owner()).isEqualTo(lease.owner());
            assertThat(held.remaining()).isEqualTo(Duration.ofSeconds(50));
            assertThat(store.renewTtls).containsExactly(Duration.ofSeconds(60));
        }

        @Test
        void extend_shorter_movesDeadlineEarlierAndStoreFreesKeyAtNewExpiry() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(30)).withRenewal(false));
            assertThat(lease.extend(Duration.ofSeconds(1))).isEqualTo(ExtendResult.EXTENDED);
            assertThat(lease.remaining()).isEqualTo(ttlMinusDefaultMargin(Duration.ofSeconds(1)));
            advance(Duration.ofMillis(999));
            assertThat(heldInStore().owner()).isEqualTo(lease.owner());
            advance(Duration.ofMillis(1));
            assertThat(inner.tryAcquire(KEY, "other", Duration.ofSeconds(1), false)
                            .join())
                    .isInstanceOf(AcquireResult.Acquired.class);
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> lease.state() == LeaseState.LOST);
        }

        @Test
        void extend_defaultPeriod_watchdogRenewsWithNewTtlEveryThirdOfIt() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(30)));
            lease.extend(Duration.ofSeconds(3));
            advance(Duration.ofMillis(950)); // due at 1 s, sent with others within a tenth of the period
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> store.renewTtls.size() == 2);
            assertThat(store.renewTtls).containsExactly(Duration.ofSeconds(3), Duration.ofSeconds(3));
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> lease.remaining().equals(ttlMinusDefaultMargin(Duration.ofSeconds(3))));
        }

        @Test
        void extend_explicitRenewEveryAndMargin_stay() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(30))
                    .withRenewEvery(Duration.ofSeconds(2))
                    .withSafetyMargin(Duration.ofSeconds(1)));
            lease.extend(Duration.ofSeconds(10));
            assertThat(lease.remaining()).isEqualTo(Duration.ofSeconds(9));
            advance(Duration.ofMillis(1700));
            await().pollDelay(Duration.ofMillis(200))
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> true);
            assertThat(store.renewTtls).hasSize(1);
            advance(Duration.ofMillis(150)); // due at 2 s, sent within a tenth of the period
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> store.renewTtls.size() == 2);
            assertThat(store.renewTtls.get(1)).isEqualTo(Duration.ofSeconds(10));
        }
    }

    @Nested
    class NotExtended {

        @Test
        void extend_afterRelease_notHeldAndNothingSent() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(3)));
            lease.release();
            int calls = inner.calls.get();
            assertThat(lease.extend(Duration.ofSeconds(60))).isEqualTo(ExtendResult.NOT_HELD);
            assertThat(inner.calls).hasValue(calls);
            assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
        }

        @Test
        void extend_storeHasKeyAsAnotherOwners_refusedLeaseLostOthersLeaseUntouched() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(30)));
            AtomicReference<Lease> lost = new AtomicReference<>();
            lease.onLost(lost::set);
            inner.takeOver(KEY, "thief", Duration.ofSeconds(5));
            assertThat(lease.extend(Duration.ofSeconds(60))).isEqualTo(ExtendResult.REFUSED);
            assertThat(lease.state()).isEqualTo(LeaseState.LOST);
            assertThat(lost.get()).isSameAs(lease);
            assertThat(heldInStore()).isEqualTo(new AcquireResult.Held("thief", Duration.ofSeconds(5)));
            int calls = inner.calls.get();
            assertThat(lease.extend(Duration.ofSeconds(60))).isEqualTo(ExtendResult.NOT_HELD);
            assertThat(inner.calls).hasValue(calls);
        }

        @Test
        void extend_localValidityRunOut_notHeldLostAndNothingSent() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(3)).withRenewal(false));
            int calls = inner.calls.get();
            time.addAndGet(Duration.ofSeconds(3).toNanos());
            assertThat(lease.extend(Duration.ofSeconds(60))).isEqualTo(ExtendResult.NOT_HELD);
            assertThat(lease.state()).isEqualTo(LeaseState.LOST);
            assertThat(inner.calls).hasValue(calls);
        }
    }

    @Nested
    class Faults {

        @Test
        void extend_longerStoreDown_typedErrorAndDeadlineUnchanged() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(3)));
            Duration before = lease.remaining();
            inner.down.set(true);
            assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(60)))
                    .isInstanceOf(LeaseStoreUnavailableException.class)
                    .hasMessageContaining("'" + KEY + "'");
            assertThat(lease.remaining()).isEqualTo(before);
            assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
        }

        /** The failed shortening may still land in the store: the holder must not trust the lease past it. */
        @Test
        void extend_shorterStoreDown_typedErrorAndDeadlineAsIfApplied() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(30)));
            inner.down.set(true);
            assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(1)))
                    .isInstanceOf(LeaseStoreUnavailableException.class);
            assertThat(lease.remaining()).isEqualTo(ttlMinusDefaultMargin(Duration.ofSeconds(1)));
        }

        /**
         * A renewal with the old, shorter TTL failed and may still land after the lengthening: until it has surely ended
         * (the call timeout, 1 s here), the lengthening proves only the old TTL, and renewals come sooner.
         */
        @Test
        void extend_longerAfterFailedRenewal_provesOldTtlUntilThatRenewalSurelyEnded() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(3)));
            inner.down.set(true);
            int calls = inner.calls.get();
            advance(Duration.ofSeconds(1));
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> inner.calls.get() > calls);
            inner.down.set(false);
            assertThat(lease.extend(Duration.ofSeconds(60))).isEqualTo(ExtendResult.EXTENDED);
            assertThat(lease.remaining()).isEqualTo(Duration.ofSeconds(3).minus(Duration.ofMillis(602)));
            advance(Duration.ofMillis(1100));
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> lease.remaining().equals(ttlMinusDefaultMargin(Duration.ofSeconds(60))));
        }
    }

    @Nested
    class Ordering {

        @Test
        void extend_whileRenewalInFlight_waitsForItThenDeadlineFollowsNewTtl() throws Exception {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(30)));
            store.holdNext.set(1);
            advance(Duration.ofSeconds(10));
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> store.held.size() == 1);
            CompletableFuture<ExtendResult> extend =
                    CompletableFuture.supplyAsync(() -> lease.extend(Duration.ofSeconds(2)));
            await().pollDelay(Duration.ofMillis(200))
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> true);
            assertThat(extend).isNotDone();
            assertThat(store.renewTtls).containsExactly(Duration.ofSeconds(30));
            store.letOneThrough();
            assertThat(extend.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                    .isEqualTo(ExtendResult.EXTENDED);
            assertThat(store.renewTtls).containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(2));
            assertThat(lease.remaining()).isEqualTo(ttlMinusDefaultMargin(Duration.ofSeconds(2)));
        }

        @Test
        void extend_inFlight_watchdogSendsNoRenewalUntilItEnded() throws Exception {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(30)));
            store.holdNext.set(1);
            CompletableFuture<ExtendResult> extend =
                    CompletableFuture.supplyAsync(() -> lease.extend(Duration.ofSeconds(60)));
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> store.held.size() == 1);
            advance(Duration.ofSeconds(15)); // past the old renewal time
            await().pollDelay(Duration.ofMillis(200))
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> true);
            assertThat(store.renewTtls).containsExactly(Duration.ofSeconds(60));
            store.letOneThrough();
            assertThat(extend.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                    .isEqualTo(ExtendResult.EXTENDED);
            advance(Duration.ofSeconds(20));
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> store.renewTtls.size() == 2);
            assertThat(store.renewTtls.get(1)).isEqualTo(Duration.ofSeconds(60));
        }
    }

    @Nested
    class BadInput {

        @Test
        void extend_badTtl_namesTheValueAndChangesNothing() {
            Lease lease = acquire(LeaseOptions.ofTtl(Duration.ofSeconds(30))
                    .withRenewEvery(Duration.ofSeconds(5))
                    .withSafetyMargin(Duration.ofSeconds(1)));
            Duration before = lease.remaining();
            int calls = inner.calls.get();
            assertThatThrownBy(() -> lease.extend(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("newTtl must not be null");
            assertThatThrownBy(() -> lease.extend(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("newTtl must be positive")
                    .hasMessageContaining("PT0S");
            assertThatThrownBy(() -> lease.extend(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PT-1S");
            assertThatThrownBy(() -> lease.extend(Duration.ofMillis(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PT0.005S")
                    .hasMessageContaining("10 ms");
            assertThatThrownBy(() -> lease.extend(Duration.ofMillis(900)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PT0.9S")
                    .hasMessageContaining("renewEvery");
            Lease other = leases.tryAcquire(
                            "ext-2", LeaseOptions.ofTtl(Duration.ofSeconds(30)).withSafetyMargin(Duration.ofSeconds(1)))
                    .orElseThrow();
            assertThatThrownBy(() -> other.extend(Duration.ofMillis(900)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("PT0.9S")
                    .hasMessageContaining("safetyMargin");
            assertThat(lease.remaining()).isEqualTo(before);
            assertThat(inner.calls.get()).isEqualTo(calls + 1); // the second acquire only
        }
    }

    /** Records the TTL of every renewal; holds back the next {@link #holdNext} renewals until {@link #letOneThrough}. */
    private static final class GatedRenewals extends DelegatingLeaseStore {

        final List<Duration> renewTtls = new CopyOnWriteArrayList<>();
        final AtomicInteger holdNext = new AtomicInteger();
        final Queue<Runnable> held = new ConcurrentLinkedQueue<>();

        GatedRenewals(FaultyLeaseStore inner) {
            super(inner);
        }

        @Override
        public CompletableFuture<Boolean> renew(String key, String owner, Duration ttl) {
            renewTtls.add(ttl);
            if (holdNext.getAndUpdate(n -> Math.max(0, n - 1)) == 0) {
                return inner.renew(key, owner, ttl);
            }
            CompletableFuture<Boolean> answer = new CompletableFuture<>();
            held.add(() -> inner.renew(key, owner, ttl).whenComplete((ok, err) -> {
                if (err != null) {
                    answer.completeExceptionally(err);
                } else {
                    answer.complete(ok);
                }
            }));
            return answer;
        }

        void letOneThrough() {
            held.remove().run();
        }
    }
}
