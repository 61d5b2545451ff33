package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.ExtendResult;
import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.Leases;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour of {@link Lease} handles over a {@link LeaseStore}, for what only the store can decide: a
 * {@link Lease#extend} changes the store's expiry of the lease, for its owner only. It builds a {@link Leases} over the
 * store under test (without taking ownership of it) for each test. Every {@link LeaseStoreContract} runs it as its
 * nested class {@code LeaseHandles}, so a store's contract test runs both; a test may also extend it directly.
 *
 * <p>Observations are those of another owner: whether it can acquire the key, and what holder and remaining time the
 * store reports. Times run on the real clocks (the store's for its expiry), stretched by {@link Timing}.
 */
public abstract class LeaseContract {

    private static final Duration SHORT = Timing.scaled(Duration.ofMillis(600));
    private static final Duration LONG = Timing.scaled(Duration.ofSeconds(3));
    private static final Duration OTHERS_TTL = Duration.ofSeconds(10);

    private Leases leases;

    /** The store under test (kept open across tests; the subclass closes it). */
    protected abstract LeaseStore store();

    protected String freshKey() {
        return "lease-contract-" + UUID.randomUUID();
    }

    @BeforeEach
    void openLeases() {
        leases = Leases.builder(store()).ownsStore(false).build();
    }

    @AfterEach
    void closeLeases() {
        leases.close();
    }

    private Lease acquire(String key, LeaseOptions options) {
        return leases.tryAcquire(key, options).orElseThrow(() -> new AssertionError("key " + key + " was not free"));
    }

    /** Another owner's attempt on {@code key}: what the store says, as seen from outside the lease. */
    private AcquireResult othersAttempt(String key) {
        return LeaseStoreContract.get(store().tryAcquire(key, "other-" + UUID.randomUUID(), OTHERS_TTL, false));
    }

    private AcquireResult.Held heldBy(String key, String holder) {
        AcquireResult r = othersAttempt(key);
        assertThat(r).as("another owner's attempt on %s", key).isInstanceOf(AcquireResult.Held.class);
        AcquireResult.Held held = (AcquireResult.Held) r;
        assertThat(held.owner()).isEqualTo(holder);
        return held;
    }

    @Test
    void extend_longer_storeKeepsLeaseUntilNewExpiryThenFreesIt() {
        String key = freshKey();
        Lease lease = acquire(key, LeaseOptions.ofTtl(SHORT).withRenewal(false));
        long sentAt = System.nanoTime();
        assertThat(lease.extend(LONG)).isEqualTo(ExtendResult.EXTENDED);
        assertThat(lease.remaining()).isGreaterThan(LONG.minus(SHORT)).isLessThanOrEqualTo(LONG);
        await().pollDelay(SHORT.multipliedBy(2)).atMost(LONG).until(() -> true); // past the old expiry
        assertThat(heldBy(key, lease.owner()).remaining())
                .isGreaterThan(Duration.ZERO)
                .isLessThanOrEqualTo(LONG);
        assertThat(lease.isValid()).isTrue();
        await().atMost(LONG.plus(Timing.scaled(Duration.ofSeconds(5))))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> othersAttempt(key) instanceof AcquireResult.Acquired);
        assertThat(Duration.ofNanos(System.nanoTime() - sentAt)).isGreaterThanOrEqualTo(LONG.minusMillis(50));
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void extend_shorter_storeFreesKeyRightAfterNewExpiry() {
        String key = freshKey();
        Lease lease = acquire(key, LeaseOptions.ofTtl(Duration.ofSeconds(60)).withRenewal(false));
        assertThat(lease.extend(SHORT)).isEqualTo(ExtendResult.EXTENDED);
        assertThat(lease.remaining()).isLessThanOrEqualTo(SHORT);
        assertThat(heldBy(key, lease.owner()).remaining()).isLessThanOrEqualTo(SHORT);
        await().atMost(SHORT.plus(Timing.scaled(Duration.ofSeconds(5))))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> othersAttempt(key) instanceof AcquireResult.Acquired);
        await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> lease.state() == LeaseState.LOST);
    }

    @Test
    void extend_renewedLease_watchdogKeepsItWithNewTtl() {
        String key = freshKey();
        Lease lease = acquire(key, LeaseOptions.ofTtl(Duration.ofSeconds(60)));
        Duration newTtl = Timing.scaled(Duration.ofMillis(1500));
        assertThat(lease.extend(newTtl)).isEqualTo(ExtendResult.EXTENDED);
        await().pollDelay(newTtl.multipliedBy(2)).atMost(newTtl.multipliedBy(3)).until(() -> true);
        assertThat(lease.isValid()).as("renewed every newTtl/3 with newTtl").isTrue();
        assertThat(heldBy(key, lease.owner()).remaining()).isLessThanOrEqualTo(newTtl);
    }

    @Test
    void extend_storeHasKeyAsAnotherOwners_refusedLeaseLostOthersLeaseUntouched() {
        String key = freshKey();
        Lease lease = acquire(key, LeaseOptions.ofTtl(Duration.ofSeconds(30)));
        assertThat(LeaseStoreContract.get(store().release(key, lease.owner()))).isTrue(); // behind the handle's back
        assertThat(othersAttempt(key)).isInstanceOf(AcquireResult.Acquired.class);
        String other = ((AcquireResult.Held) othersAttempt(key)).owner();
        assertThat(lease.extend(Duration.ofSeconds(60))).isEqualTo(ExtendResult.REFUSED);
        assertThat(lease.state()).isEqualTo(LeaseState.LOST);
        assertThat(lease.remaining()).isEqualTo(Duration.ZERO);
        assertThat(heldBy(key, other).remaining()).isLessThanOrEqualTo(OTHERS_TTL);
        assertThat(lease.extend(Duration.ofSeconds(60))).isEqualTo(ExtendResult.NOT_HELD);
        assertThat(heldBy(key, other).remaining()).isLessThanOrEqualTo(OTHERS_TTL);
    }

    @Test
    void extend_afterRelease_notHeldAndNextHoldersLeaseUntouched() {
        String key = freshKey();
        Lease lease = acquire(key, LeaseOptions.ofTtl(Duration.ofSeconds(30)));
        lease.release();
        assertThat(othersAttempt(key)).isInstanceOf(AcquireResult.Acquired.class);
        String other = ((AcquireResult.Held) othersAttempt(key)).owner();
        assertThat(lease.extend(Duration.ofSeconds(60))).isEqualTo(ExtendResult.NOT_HELD);
        assertThat(lease.state()).isEqualTo(LeaseState.RELEASED);
        assertThat(heldBy(key, other).remaining()).isLessThanOrEqualTo(OTHERS_TTL);
    }
}
