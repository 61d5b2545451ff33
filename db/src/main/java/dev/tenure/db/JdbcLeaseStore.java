package dev.tenure.db;

import dev.tenure.DatabaseConfig;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Leases on {@code job_execution} rows: the database leader-election mode of Tenure, a {@link LeaseStore} for
 * {@link dev.tenure.Leases}. A lease's fencing token is the row's epoch, so it can be checked with
 * {@link JobLedger#fence} inside business transactions.
 *
 * <p>Applications do not wire it by hand: {@link dev.tenure.Tenure} builds it from a data source and a
 * {@link dev.tenure.DatabaseConfig} ({@code Tenure.builder().dataSource(pool).database(config)}), and
 * {@link dev.tenure.Tenure#databaseLeases()} gives its leases. A tool that needs the store alone opens it through
 * {@link JdbcBackend}.
 *
 * <ul>
 *   <li>acquire = {@link JobLedger#claim} (one statement), renew = extend where the owner's lease is live (with the
 *   ledger's renew lock timeout, so the watchdog never stalls behind its own holder's fenced transaction; renewals that
 *   arrive together share one statement, see {@link RenewalBatches}), release =
 *   clear where the owner matches, then {@code NOTIFY}; hand-off = one UPDATE from owner to owner (atomic).</li>
 *   <li>Waiters are woken by {@code LISTEN} through a {@link ReleaseNotifications} (one connection); polling with
 *   back-off stays the fallback.</li>
 *   <li>JDBC runs on a small bounded executor; every future completes within {@code callTimeout}, exceptionally with a
 *   {@link LedgerUnavailableException} (a {@link dev.tenure.LeaseStoreUnavailableException}) naming the key.</li>
 * </ul>
 *
 * Thread-safe. {@link #close()} stops the executor and the notifications it owns, not the data source.
 */
public final class JdbcLeaseStore implements LeaseStore {

    /** Renewal statements running at once; renewals arriving meanwhile leave together in the next one. */
    private static final int RENEWALS_IN_FLIGHT = 2;

    private static final int MAX_RENEWALS_PER_STATEMENT = 1000;

    private final JobLedger ledger;
    private final LeaseRows rows;
    private final AsyncCalls calls;
    private final RenewalBatches renewals;
    private final @Nullable ReleaseNotifications notifications;
    private final boolean ownsNotifications;
    private final Duration queryTimeout;

    private JdbcLeaseStore(Builder b, JobLedger ledger) {
        this.ledger = ledger;
        this.rows = ledger.leaseRows();
        DatabaseConfig config = Objects.requireNonNull(b.config, "config"); // set by build()
        this.calls = new AsyncCalls(config.threads(), config.maxQueued(), config.callTimeout());
        this.queryTimeout = config.queryTimeout();
        this.renewals = new RenewalBatches(calls, rows, RENEWALS_IN_FLIGHT, MAX_RENEWALS_PER_STATEMENT);
        this.ownsNotifications = b.notifications == null && config.listen();
        this.notifications = b.notifications != null
                ? b.notifications
                : config.listen() ? ReleaseNotifications.start(b.dataSource, ledger.schema()) : null;
    }

    /**
     * A store on schema {@value TenureSchema#DEFAULT_SCHEMA} with default settings and its own notifications. Not public:
     * applications get the store from {@link dev.tenure.Tenure}; tools that need it alone from {@link JdbcBackend}.
     */
    static JdbcLeaseStore create(DataSource dataSource) {
        return builder(dataSource).build();
    }

    /** See {@link #create}. */
    static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** The ledger this store works on. */
    JobLedger ledger() {
        return ledger;
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean fencingToken) {
        return calls.call("acquire", key, () -> {
            ClaimResult r = ledger.claim(key, owner, ttl);
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
            return renewals.renew(
                    JobLedger.key(key),
                    JobLedger.id("owner", owner),
                    JobLedger.ttl(ttl).toMillis());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<Boolean> release(String key, String owner) {
        return calls.call("release", key, () -> ledger.releaseIfOwner(key, owner));
    }

    @Override
    public CompletableFuture<AcquireResult> handOff(
            String key, String fromOwner, String toOwner, Duration ttl, boolean fencingToken) {
        return calls.call("hand-off", key, () -> {
            var moved = rows.handOff(
                    JobLedger.key(key),
                    JobLedger.id("owner", fromOwner),
                    JobLedger.id("owner", toOwner),
                    JobLedger.ttl(ttl));
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
        if (ownsNotifications && notifications != null) {
            notifications.close();
        }
    }

    /** Configuration of a {@link JdbcLeaseStore}. Not thread-safe; build once. */
    public static final class Builder {
        private final DataSource dataSource;
        private final JobLedger.Builder ledger;
        private final DatabaseConfig.Builder knobs = DatabaseConfig.builder();
        private @Nullable DatabaseConfig config;
        private @Nullable ReleaseNotifications notifications;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.ledger = JobLedger.builder(dataSource);
        }

        /** The schema holding Tenure's tables (default {@value TenureSchema#DEFAULT_SCHEMA}). */
        public Builder schema(String schema) {
            ledger.schema(schema);
            return this;
        }

        /**
         * The name of this node as people read it ({@link dev.tenure.integration.NodeName}), recorded next to the owner id on every
         * claim of this store and every run of a {@link JdbcRunLedger} on it, and shown by the console instead of the
         * owner id (default none: the console shows the owner's process). {@link dev.tenure.Tenure.Builder#nodeName}
         * sets it for the stores Tenure builds; set it here when wiring a {@code JobCoordinator} by hand.
         *
         * @throws IllegalArgumentException if blank, too long or with control characters
         */
        public Builder nodeName(String name) {
            ledger.nodeName(name);
            return this;
        }

        /**
         * Every knob at once: lock waits, query timeout, threads, queue, call timeout, LISTEN. The setters below change
         * one knob each, after or instead of this.
         */
        public Builder config(DatabaseConfig config) {
            knobs.claimLockTimeout(config.claimLockTimeout())
                    .renewLockTimeout(config.renewLockTimeout())
                    .queryTimeout(config.queryTimeout())
                    .threads(config.threads())
                    .maxQueued(config.maxQueued())
                    .callTimeout(config.callTimeout())
                    .listen(config.listen());
            return this;
        }

        /** See {@link DatabaseConfig.Builder#claimLockTimeout} and {@link JobLedger.Builder#claimLockTimeout}. */
        public Builder claimLockTimeout(Duration timeout) {
            knobs.claimLockTimeout(timeout);
            return this;
        }

        /** See {@link DatabaseConfig.Builder#renewLockTimeout}. */
        public Builder renewLockTimeout(Duration timeout) {
            knobs.renewLockTimeout(timeout);
            return this;
        }

        /** See {@link DatabaseConfig.Builder#queryTimeout}. */
        public Builder queryTimeout(Duration timeout) {
            knobs.queryTimeout(timeout);
            return this;
        }

        /** Threads running JDBC calls (default 4; at most the pool size makes sense). */
        public Builder threads(int threads) {
            knobs.threads(threads);
            return this;
        }

        /** Calls that may wait for a thread before new ones fail at once (default 1024). */
        public Builder maxQueued(int max) {
            knobs.maxQueued(max);
            return this;
        }

        /**
         * Upper bound on every call, queueing included (default 4.5 s: above the pool's connection timeout plus a
         * claim's lock wait, below {@link dev.tenure.Leases}' 5 s call timeout).
         */
        public Builder callTimeout(Duration timeout) {
            knobs.callTimeout(timeout);
            return this;
        }

        /** Shares release notifications (one LISTEN connection) with other stores; not closed by the store. */
        public Builder notifications(ReleaseNotifications shared) {
            this.notifications = Objects.requireNonNull(shared, "notifications");
            return this;
        }

        /** Whether to LISTEN for releases at all (default true); without, waiters only poll. */
        public Builder listen(boolean on) {
            knobs.listen(on);
            return this;
        }

        public JdbcLeaseStore build() {
            config = knobs.build();
            JobLedger built = ledger.claimLockTimeout(config.claimLockTimeout())
                    .renewLockTimeout(config.renewLockTimeout())
                    .queryTimeout(config.queryTimeout())
                    .build();
            if (notifications != null && !notifications.schema().equals(built.schema())) {
                throw new IllegalArgumentException("the shared notifications listen on schema '"
                        + notifications.schema() + "' but the store works on schema '" + built.schema() + "'");
            }
            return new JdbcLeaseStore(this, built);
        }
    }
}
