package dev.tenure.db;

import static dev.tenure.db.LedgerArgs.epoch;
import static dev.tenure.db.LedgerArgs.id;
import static dev.tenure.db.LedgerArgs.key;
import static dev.tenure.db.LedgerArgs.ttl;

import dev.tenure.DatabaseConfig;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Leases on {@code job_execution} rows: the database leader-election mode of Tenure, a {@link LeaseStore} for
 * {@link dev.tenure.Leases}. A lease's fencing token is the row's epoch, so it can be checked with
 * {@link JdbcRunLedger#fence} inside business transactions.
 *
 * <p>{@link JdbcBackend} opens it, on the {@link LeaseRows} it shares with its siblings, the {@link JdbcRunLedger} and
 * the {@link JdbcScheduleLedger}; applications get its leases from {@link dev.tenure.Tenure#databaseLeases()}.
 *
 * <ul>
 *   <li>acquire = {@link #claim} (one statement), renew = extend where the owner's lease is live (with the
 *   ledger's renew lock timeout, so the watchdog never stalls behind its own holder's fenced transaction; renewals that
 *   arrive together share one statement, see {@link RenewalBatches}), release =
 *   clear where the owner matches, then {@code NOTIFY}; hand-off = one UPDATE from owner to owner (atomic).</li>
 *   <li>Waiters are woken by {@code LISTEN} through a {@link ReleaseNotifications} (one connection); polling with
 *   back-off stays the fallback.</li>
 *   <li>JDBC runs on a small bounded executor; every future completes within {@code callTimeout}, exceptionally with a
 *   {@link LedgerUnavailableException} (a {@link dev.tenure.LeaseStoreUnavailableException}) naming the key.</li>
 * </ul>
 *
 * Thread-safe. {@link #close()} stops the executor and the notifications, not the data source.
 */
final class JdbcLeaseStore implements LeaseStore {

    /** Renewal statements running at once; renewals arriving meanwhile leave together in the next one. */
    private static final int RENEWALS_IN_FLIGHT = 2;

    private static final int MAX_RENEWALS_PER_STATEMENT = 1000;

    private final LeaseRows rows;
    private final AsyncCalls calls;
    private final RenewalBatches renewals;
    private final @Nullable ReleaseNotifications notifications;
    private final Duration queryTimeout;

    /**
     * The store on {@code rows}, with the threads, queue and call timeout of {@code config}, and {@code notifications}
     * to wake its waiters (null: they only poll), which it closes with itself.
     */
    JdbcLeaseStore(LeaseRows rows, DatabaseConfig config, @Nullable ReleaseNotifications notifications) {
        this.rows = rows;
        this.calls = new AsyncCalls(config.threads(), config.maxQueued(), config.callTimeout());
        this.queryTimeout = config.queryTimeout();
        this.renewals = new RenewalBatches(calls, rows, RENEWALS_IN_FLIGHT, MAX_RENEWALS_PER_STATEMENT);
        this.notifications = notifications;
    }

    /**
     * Claims {@code jobKey} for {@code owner} for {@code ttl}, on the calling thread: creates the row if missing, and
     * bumps its epoch and sets the lease only where no other owner's lease is live by the database clock (a live lease
     * of the same owner is claimed again with a new epoch). A claim waits for a current fence lock (up to the claim lock
     * timeout), so a holder's open fenced transaction finishes before the hand-over; if it stays open longer, the job
     * counts as held.
     *
     * @return {@link ClaimResult.Claimed} with the new epoch, or {@link ClaimResult.Held} the current holder
     * @throws LedgerUnavailableException on faults; if {@link LedgerUnavailableException#outcomeUnknown()}, the row may
     *                                    name {@code owner} until its TTL: {@link #releaseIfOwner} clears it
     */
    ClaimResult claim(String jobKey, String owner, Duration ttl) {
        return rows.claim(key(jobKey), id("owner", owner), ttl(ttl));
    }

    /**
     * Extends the lease of {@code epoch} (held by {@code owner}) to {@code ttl} from now (database clock), only if that
     * epoch is current, still {@code owner}'s, and its lease still live. {@code false} = fenced out or expired: the
     * lease is lost and must be claimed again.
     *
     * <p>Fence checks do not hold it up (they lock the row FOR KEY SHARE, which a renewal's FOR NO KEY UPDATE does not
     * conflict with). If the row is locked by a claim or hand-off in progress, it gives up after the renew lock timeout
     * with a {@link LedgerUnavailableException} (SQLSTATE 55P03), to be retried.
     */
    boolean renewEpoch(String jobKey, long epoch, String owner, Duration ttl) {
        return rows.renewEpoch(key(jobKey), epoch(epoch), id("owner", owner), ttl(ttl));
    }

    /**
     * Clears the lease of {@code epoch} (the epoch stays; the next claim bumps it) and wakes waiters with
     * {@code NOTIFY}. Call it after the run's transactions have committed, never before.
     *
     * @return the database time of the release, or empty if the epoch was no longer {@code owner}'s or already released
     */
    Optional<Instant> releaseEpoch(String jobKey, long epoch, String owner) {
        return rows.releaseEpoch(key(jobKey), epoch(epoch), id("owner", owner));
    }

    /** Clears {@code owner}'s lease (after a claim whose outcome is unknown, say) and wakes waiters. True if it was theirs. */
    boolean releaseIfOwner(String jobKey, String owner) {
        return rows.releaseOwner(key(jobKey), id("owner", owner)).isPresent();
    }

    /** Who holds {@code jobKey} now by the database clock; empty if nobody's lease is live. */
    Optional<JobHolder> holder(String jobKey) {
        return rows.holder(key(jobKey));
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean fencingToken) {
        return calls.call("acquire", key, () -> {
            ClaimResult r = claim(key, owner, ttl);
            if (r instanceof ClaimResult.Claimed c) {
                return AcquireResult.acquired(fencingToken ? c.epoch() : 0);
            }
            ClaimResult.Held h = (ClaimResult.Held) r;
            return new AcquireResult.Held(h.owner() == null ? "" : h.owner(), h.remaining());
        });
    }

    /** Renewals that arrive together go out in one statement, each lease checked against its own owner. */
    @Override
    public CompletableFuture<Boolean> renew(String key, String owner, Duration ttl) {
        try {
            return renewals.renew(key(key), id("owner", owner), ttl(ttl).toMillis());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> release(String key, String owner) {
        return calls.call("release", key, () -> releaseIfOwner(key, owner));
    }

    @Override
    public CompletableFuture<AcquireResult> handOff(
            String key, String fromOwner, String toOwner, Duration ttl, boolean fencingToken) {
        return calls.call("hand-off", key, () -> {
            var moved = rows.handOff(key(key), id("owner", fromOwner), id("owner", toOwner), ttl(ttl));
            if (moved.isPresent()) {
                return AcquireResult.acquired(fencingToken ? moved.get().epoch() : 0);
            }
            return rows.read(key)
                    .<AcquireResult>map(h -> new AcquireResult.Held(h.owner() == null ? "" : h.owner(), h.remaining()))
                    .orElseGet(() -> new AcquireResult.Held("", Duration.ZERO));
        });
    }

    /** The hand-off is one UPDATE that replaces the owner: the key is never free in between. */
    @Override
    public boolean atomicHandOff() {
        return true;
    }

    /**
     * A call given up on may still wait in the queue for up to the call timeout (then it never starts), then for a
     * connection (within the pool's connection timeout, which the call timeout is meant to exceed), then run its
     * statement, which the ledger's query timeout ends at the latest (rounded up to whole seconds, as JDBC does).
     */
    @Override
    public Duration longestCall() {
        long querySeconds = (queryTimeout.toMillis() + 999) / 1000;
        return calls.callTimeout().multipliedBy(2).plusSeconds(querySeconds);
    }

    @Override
    public AutoCloseable subscribeReleases(String key, Runnable onRelease) {
        if (notifications == null) {
            return () -> {};
        }
        return notifications.subscribe(key, onRelease);
    }

    @Override
    public void close() {
        calls.close();
        if (notifications != null) {
            notifications.close();
        }
    }
}
