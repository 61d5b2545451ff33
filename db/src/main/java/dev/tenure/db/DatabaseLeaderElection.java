package dev.tenure.db;

import dev.tenure.LeaderElection;
import dev.tenure.Ticker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.lang.management.ManagementFactory;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Leader election on the database alone: the role is a {@code job_execution} row held for long. The term's epoch is
 * the row's fencing token, so the leader's writes can be fenced with {@link JobLedger#fence}.
 *
 * <ul>
 *   <li>Campaign: {@link JobLedger#claim}. While someone else leads, wait until their lease would end (as the database
 *   reports it), woken early by the {@code NOTIFY} of a release; after faults, back off (100 ms doubling to
 *   {@code maxBackoff}).</li>
 *   <li>Leading: renew every {@code renewEvery} (default ttl/3) on the election's own threads. Validity is local, on the
 *   monotonic clock, measured from before the claim (or renewal) was sent: {@code sentAt + ttl - safetyMargin}. When it
 *   passes without a successful renewal, or a renewal finds the epoch superseded, leadership is revoked and the
 *   election campaigns again.</li>
 *   <li>{@link #stop()} releases the row (successors are woken by the release notification) and stops campaigning.</li>
 * </ul>
 *
 * <p>This class is a state machine, hence its size. All state changes and all callbacks run on one "state" thread;
 * database calls run on a second "io" thread, so a slow database never delays the revocation deadline. Thread-safe.
 */
public final class DatabaseLeaderElection implements LeaderElection {

    private static final Logger LOG = LoggerFactory.getLogger(DatabaseLeaderElection.class);
    private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private record Term(long epoch, long validUntil) {
    }

    private final String name;
    private final String participantId;
    private final String ownerId;
    private final JobLedger ledger;
    private final Duration ttl;
    private final long renewEveryNanos;
    private final long marginNanos;
    private final long maxBackoffNanos;
    private final Ticker ticker;
    private final Listener listener;
    private final ReleaseNotifications notifications;
    private final boolean ownsNotifications;
    private final DataSource dataSource;
    private final ScheduledExecutorService state;
    private final ExecutorService io;
    private volatile Thread stateThread;

    // written on the state thread only
    private volatile Term term;
    private boolean started;
    private volatile boolean stopped;
    private boolean campaignInFlight;
    private boolean campaignAgain;
    private boolean renewInFlight;
    private long backoffNanos = MIN_BACKOFF_NANOS;
    private ScheduledFuture<?> nextCampaign;
    private ScheduledFuture<?> nextRenew;
    private ScheduledFuture<?> deadline;
    private AutoCloseable subscription;
    private volatile ReleaseNotifications notificationsInUse;

    private DatabaseLeaderElection(Builder b) {
        this.name = b.name;
        this.participantId = b.participantId != null ? b.participantId : defaultParticipantId();
        this.ownerId = uniqueOwner(participantId);
        this.ledger = b.ledger != null ? b.ledger : JobLedger.builder(b.dataSource).schema(b.schema).build();
        this.ttl = b.ttl;
        this.renewEveryNanos = (b.renewEvery != null ? b.renewEvery : b.ttl.dividedBy(3)).toNanos();
        this.marginNanos = (b.safetyMargin != null ? b.safetyMargin : b.ttl.dividedBy(100).plusMillis(2)).toNanos();
        this.maxBackoffNanos = b.maxBackoff.toNanos();
        this.ticker = b.ticker;
        this.listener = b.listener;
        this.dataSource = b.dataSource;
        this.ownsNotifications = b.notifications == null && b.listen;
        this.notifications = b.notifications;
        ScheduledThreadPoolExecutor st = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "tenure-election-" + name);
            t.setDaemon(true);
            stateThread = t;
            return t;
        });
        st.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // scheduled campaigns and renewals end with stop()
        st.setRemoveOnCancelPolicy(true);
        this.state = st;
        this.io = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tenure-election-io-" + name);
            t.setDaemon(true);
            return t;
        });
    }

    /** An election for the role {@code name} (a valid job key) over {@code dataSource}. */
    public static Builder builder(DataSource dataSource, String name) {
        return new Builder(dataSource, name);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String participantId() {
        return participantId;
    }

    /**
     * The owner id this participant writes into the row: the participant id plus a random suffix, unique per
     * instance, so that two processes configured with the same participant id never take each other's lease. Fence
     * a leader's writes with {@code ledger.fence(connection, name(), epoch, ownerId())}.
     */
    public String ownerId() {
        return ownerId;
    }

    @Override
    public synchronized void start() {
        if (started || stopped) {
            return;
        }
        started = true;
        ReleaseNotifications n = notifications;
        if (n == null && ownsNotifications) {
            n = ReleaseNotifications.start(dataSource, ledger.schema());
        }
        notificationsInUse = n;
        state.execute(() -> {
            if (notificationsInUse != null) {
                subscription = notificationsInUse.subscribe(name, () -> onState(this::wokenByRelease));
            }
            campaign();
        });
    }

    @Override
    public boolean isLeader() {
        Term t = term;
        return t != null && ticker.nanoTime() - t.validUntil < 0;
    }

    @Override
    public OptionalLong term() {
        Term t = term;
        return t != null && ticker.nanoTime() - t.validUntil < 0 ? OptionalLong.of(t.epoch) : OptionalLong.empty();
    }

    /** Reads the row (one query): who leads by the database clock. Faults are {@link LedgerUnavailableException}s. */
    @Override
    public Optional<Leader> currentLeader() {
        return ledger.holder(name).map(h -> new Leader(h.owner(), h.epoch(), h.leaseExpiresAt()));
    }

    // ---- campaigning (state thread) ----

    private void campaign() {
        if (stopped || term != null) {
            return;
        }
        if (campaignInFlight) {
            campaignAgain = true;
            return;
        }
        campaignInFlight = true;
        campaignAgain = false;
        long sentAt = ticker.nanoTime();
        CompletableFuture.supplyAsync(this::claimUnlessStopped, io)
                .whenComplete((r, e) -> onState(() -> onClaim(sentAt, r, e)));
    }

    /** A claim that wins after stop() began is given back at once, on the io thread (stop() waits for it). */
    private ClaimResult claimUnlessStopped() {
        ClaimResult r = ledger.claim(name, ownerId, ttl);
        if (stopped && r instanceof ClaimResult.Claimed c) {
            releaseQuietly(c.epoch());
        }
        return r;
    }

    private void wokenByRelease() {
        if (term == null && !stopped) {
            cancel(nextCampaign);
            campaign();
        }
    }

    private void onClaim(long sentAt, ClaimResult r, Throwable error) {
        campaignInFlight = false;
        if (stopped) {
            if (r instanceof ClaimResult.Claimed c) {
                releaseQuietly(c.epoch());
            }
            return;
        }
        if (r instanceof ClaimResult.Claimed c) {
            backoffNanos = MIN_BACKOFF_NANOS;
            long validFor = Math.min(ttl.toNanos(), c.remaining().toNanos());
            becomeLeader(new Term(c.epoch(), sentAt + validFor - marginNanos), sentAt);
            return;
        }
        long delay;
        if (r instanceof ClaimResult.HeldBy h) {
            backoffNanos = MIN_BACKOFF_NANOS;
            long jitter = ThreadLocalRandom.current().nextLong(1_000_000L, 20_000_000L);
            delay = campaignAgain ? 0 : Math.min(maxBackoffNanos, h.remaining().toNanos() + jitter);
        } else {
            LOG.debug("election '{}': campaign failed: {}", name, error.toString());
            delay = ThreadLocalRandom.current().nextLong(backoffNanos / 2, backoffNanos + 1);
            backoffNanos = Math.min(maxBackoffNanos, backoffNanos * 2);
        }
        nextCampaign = state.schedule(this::campaign, delay, TimeUnit.NANOSECONDS);
    }

    private void becomeLeader(Term t, long sentAt) {
        term = t;
        scheduleDeadline(t);
        nextRenew = state.schedule(this::renew, Math.max(0, sentAt + renewEveryNanos - ticker.nanoTime()),
                TimeUnit.NANOSECONDS);
        LOG.info("election '{}': {} is leader, epoch {}", name, ownerId, t.epoch);
        callback(() -> listener.elected(t.epoch));
    }

    // ---- leading (state thread) ----

    private void renew() {
        Term t = term;
        if (stopped || t == null || renewInFlight) {
            return;
        }
        renewInFlight = true;
        long sentAt = ticker.nanoTime();
        CompletableFuture.supplyAsync(() -> ledger.renew(name, t.epoch, ownerId, ttl), io)
                .whenComplete((ok, e) -> onState(() -> onRenew(t, sentAt, ok, e)));
    }

    private void onRenew(Term renewed, long sentAt, Boolean ok, Throwable error) {
        renewInFlight = false;
        Term t = term;
        if (stopped || t == null || t.epoch != renewed.epoch) {
            return;
        }
        if (error != null) {
            LOG.debug("election '{}': renewal failed, retrying: {}", name, error.toString());
            nextRenew = state.schedule(this::renew, Math.max(5_000_000L, renewEveryNanos / 4), TimeUnit.NANOSECONDS);
        } else if (ok) {
            Term extended = new Term(t.epoch, Math.max(t.validUntil, sentAt + ttl.toNanos() - marginNanos));
            term = extended;
            scheduleDeadline(extended);
            nextRenew = state.schedule(this::renew, Math.max(0, sentAt + renewEveryNanos - ticker.nanoTime()),
                    TimeUnit.NANOSECONDS);
        } else {
            revoke("the lease of epoch " + t.epoch + " was superseded or expired in the database");
            campaign();
        }
    }

    private void scheduleDeadline(Term t) {
        cancel(deadline);
        deadline = state.schedule(() -> checkValidity(t.epoch), Math.max(0, t.validUntil - ticker.nanoTime()),
                TimeUnit.NANOSECONDS);
    }

    private void checkValidity(long epoch) {
        Term t = term;
        if (t == null || t.epoch != epoch || stopped) {
            return;
        }
        if (ticker.nanoTime() - t.validUntil >= 0) {
            revoke("no successful renewal before the local validity deadline");
            campaign();
        } else {
            scheduleDeadline(t);
        }
    }

    private void revoke(String reason) {
        Term t = term;
        term = null;
        cancel(nextRenew);
        cancel(deadline);
        if (t != null) {
            LOG.warn("election '{}': {} lost leadership (epoch {}): {}", name, ownerId, t.epoch, reason);
            callback(() -> listener.revoked(reason));
        }
    }

    // ---- stopping ----

    /** Resigns (releases the row if leading, which wakes successors) and stops campaigning. Idempotent; bounded. */
    @Override
    public void stop() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            stopped = true;
        }
        io.shutdown(); // let an in-flight claim or renewal finish (bounded by the pool's timeouts) and report
        try {
            io.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (Thread.currentThread() == stateThread) {
            resign();
        } else {
            try {
                state.submit(this::resign).get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                LOG.warn("election '{}': stopping did not finish cleanly: {}", name, e.toString());
            }
        }
        state.shutdown();    // results already queued still run (and see "stopped"); scheduled work is dropped
        if (ownsNotifications && notificationsInUse != null) {
            notificationsInUse.close();
        }
    }

    private void resign() {
        cancel(nextCampaign);
        cancel(nextRenew);
        cancel(deadline);
        closeQuietly(subscription);
        Term t = term;
        term = null;
        if (t != null) {
            try {
                ledger.release(name, t.epoch, ownerId); // on this thread: io is shut down by now
            } catch (RuntimeException e) {
                LOG.warn("election '{}': release on stop failed ({}); the lease expires by its TTL", name, e.toString());
            }
            LOG.info("election '{}': {} resigned (epoch {})", name, ownerId, t.epoch);
            callback(() -> listener.revoked("stopped"));
        }
    }

    private void releaseQuietly(long epoch) {
        try {
            ledger.release(name, epoch, ownerId);
        } catch (RuntimeException e) {
            LOG.debug("election '{}': release of epoch {} failed: {}", name, epoch, e.toString());
        }
    }

    // ---- plumbing ----

    private void onState(Runnable r) {
        try {
            state.execute(r);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // stopped meanwhile
        }
    }

    private void callback(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.error("election '{}': listener threw", name, e);
        }
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // best effort
            }
        }
    }

    /** {@code id#<8 hex>}, kept within the ledger's id length. */
    private static String uniqueOwner(String id) {
        byte[] b = new byte[4];
        new SecureRandom().nextBytes(b);
        String suffix = "#" + HexFormat.of().formatHex(b);
        return id.substring(0, Math.min(id.length(), JobLedger.MAX_ID_LENGTH - suffix.length())) + suffix;
    }

    private static String defaultParticipantId() {
        byte[] b = new byte[4];
        new SecureRandom().nextBytes(b);
        return ManagementFactory.getRuntimeMXBean().getName() + "-" + HexFormat.of().formatHex(b);
    }

    @Override
    public String toString() {
        Term t = term;
        return "DatabaseLeaderElection[" + name + ", " + ownerId + (t != null ? ", leader epoch " + t.epoch : ", follower") + "]";
    }

    /** Configuration of a {@link DatabaseLeaderElection}. Not thread-safe; build once. */
    public static final class Builder {
        private final DataSource dataSource;
        private final String name;
        private String participantId;
        private JobLedger ledger;
        private String schema = TenureSchema.DEFAULT_SCHEMA;
        private Duration ttl = Duration.ofSeconds(10);
        private Duration renewEvery;
        private Duration safetyMargin;
        private Duration maxBackoff = Duration.ofSeconds(2);
        private Ticker ticker = Ticker.system();
        private Listener listener = new Listener() {
            @Override
            public void elected(long epoch) {
            }

            @Override
            public void revoked(String reason) {
            }
        };
        private ReleaseNotifications notifications;
        private boolean listen = true;

        private Builder(DataSource dataSource, String name) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.name = JobLedger.key(name);
        }

        /** This participant's id, stored as the row's owner (default: {@code pid@host-<random>}). */
        public Builder participantId(String id) {
            this.participantId = JobLedger.id("participantId", id);
            return this;
        }

        /** Shares a ledger (its schema and lock timeouts) instead of building one on the data source. */
        public Builder ledger(JobLedger ledger) {
            this.ledger = Objects.requireNonNull(ledger, "ledger");
            return this;
        }

        /** The schema holding Tenure's tables, when no ledger is given (default {@value TenureSchema#DEFAULT_SCHEMA}). */
        public Builder schema(String schema) {
            this.schema = TenureSchema.checkName(schema);
            return this;
        }

        /** The lease time of a term without renewal (default 10 s). */
        public Builder ttl(Duration ttl) {
            this.ttl = JobLedger.ttl(ttl);
            return this;
        }

        /** How often the leader renews (default ttl / 3). */
        public Builder renewEvery(Duration every) {
            this.renewEvery = Objects.requireNonNull(every, "renewEvery");
            return this;
        }

        /** Subtracted from the local validity deadline (default 1% of the ttl + 2 ms). */
        public Builder safetyMargin(Duration margin) {
            this.safetyMargin = Objects.requireNonNull(margin, "safetyMargin");
            return this;
        }

        /** Longest pause between campaigns (default 2 s); release notifications cut it short. */
        public Builder maxBackoff(Duration max) {
            Objects.requireNonNull(max, "maxBackoff");
            if (max.toMillis() < 100) {
                throw new IllegalArgumentException("maxBackoff must be at least 100 ms (got " + max + ")");
            }
            this.maxBackoff = max;
            return this;
        }

        /** The monotonic clock for the local validity deadline (default the system's). */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** Told when this participant is elected and when it stops leading; runs on the election's thread. */
        public Builder listener(Listener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Shares release notifications with stores and other elections (not closed by the election). */
        public Builder notifications(ReleaseNotifications shared) {
            this.notifications = Objects.requireNonNull(shared, "notifications");
            return this;
        }

        /** Whether to LISTEN for releases at all (default true); without, followers poll every {@code maxBackoff}. */
        public Builder listen(boolean on) {
            this.listen = on;
            return this;
        }

        public DatabaseLeaderElection build() {
            String usedSchema = ledger != null ? ledger.schema() : schema;
            if (notifications != null && !notifications.schema().equals(usedSchema)) {
                throw new IllegalArgumentException("the shared notifications listen on schema '" + notifications.schema()
                        + "' but the election works on schema '" + usedSchema + "'");
            }
            Duration every = renewEvery != null ? renewEvery : ttl.dividedBy(3);
            if (every.isZero() || every.isNegative() || every.compareTo(ttl) >= 0) {
                throw new IllegalArgumentException("renewEvery (" + every + ") must be positive and shorter than ttl (" + ttl + ")");
            }
            Duration margin = safetyMargin != null ? safetyMargin : ttl.dividedBy(100).plusMillis(2);
            if (margin.isNegative() || margin.compareTo(ttl.minus(every)) >= 0) {
                throw new IllegalArgumentException("safetyMargin (" + margin + ") must be >= 0 and shorter than ttl - renewEvery");
            }
            return new DatabaseLeaderElection(this);
        }
    }
}
