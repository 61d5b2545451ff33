package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;
import dev.tenure.ValkeyConfig.ScriptMode;
import dev.tenure.internal.CallBatcher;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import glide.api.BaseClient;
import glide.api.logging.Logger;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * Leases in Valkey (standalone or cluster) through Valkey GLIDE. Thread-safe; one instance per application,
 * sharing one multiplexed client, or {@link ValkeyConfig#clients()} of them (a key's operations always use the same
 * one, see {@link ValkeyLink}). Every operation is one script call (see {@link LeaseScript}), and
 * concurrent operations are coalesced into shared calls (see {@link CallBatcher}); a lone acquire without fencing token or
 * queue sends the script's first command on its own ({@code SET NX GET PX}) and runs the script only if the key is held. With
 * {@link ValkeyConfig#replicaAcks()}, acquires and hand-offs use a second connection, where each call is followed
 * by WAIT (see {@link AckedGrants}); renewals and releases never queue behind a WAIT.
 *
 * <p>In {@link ScriptMode#PRELOADED_FUNCTION} an administrator first installs the function ({@link ValkeyFunctions}).
 *
 * <p>{@link GlideBackend} opens it for {@link dev.tenure.Tenure}; tests of this package open it with {@link #create}.
 */
final class ValkeyLeaseStore implements LeaseStore {

    static {
        // GLIDE's native core logs every failed in-flight request at WARN on stdout; Tenure reports faults itself.
        Logger.init(Logger.Level.ERROR);
    }

    private final ValkeyConfig cfg;
    private final ValkeyLink link;
    /** One batcher per client of the link: an operation goes to its key's lane ({@link ValkeyLink#laneOf}). */
    private final List<CallBatcher<Op>> lanes;
    /** Acquires and hand-offs when grants wait for replicas: one call at a time; else null (they go to their lane). */
    private final @Nullable CallBatcher<Op> acked;

    private final ReleaseNotifier notifier;
    /** The thread of the link's and the notifier's delayed chores. */
    private final ValkeyTimer timer;
    /** How long a turn passed to the next queued process stays reserved for it. */
    private final long turnMillis;

    private ValkeyLeaseStore(ValkeyConfig cfg) {
        this.cfg = cfg;
        this.timer = new ValkeyTimer();
        this.link = ValkeyLink.open(cfg, timer);
        this.lanes = IntStream.range(0, link.lanes())
                .mapToObj(lane -> new CallBatcher<Op>(
                        cfg.maxInFlightBatches(),
                        cfg.maxBatchSize(),
                        batch -> link.send(lane, batch),
                        ValkeyLeaseStore::failAll))
                .toList();
        this.acked = cfg.replicaAcks() > 0
                ? new CallBatcher<>(1, cfg.maxBatchSize(), link::sendAcked, ValkeyLeaseStore::failAll)
                : null;
        this.notifier = new ReleaseNotifier(cfg, timer);
        this.turnMillis = Math.max(50, Math.min(250, cfg.requestTimeout().toMillis() / 2));
        link.onPrimarySwitch(notifier::moveTo);
    }

    /**
     * Creates the store. Connects lazily, so this succeeds while Valkey is down; operations then fail with
     * {@link dev.tenure.LeaseStoreUnavailableException} within the request timeout.
     */
    static ValkeyLeaseStore create(ValkeyConfig cfg) {
        return new ValkeyLeaseStore(cfg);
    }

    ValkeyConfig config() {
        return cfg;
    }

    /** The Valkey key that holds the lease of {@code key} (for operators and tests). */
    String leaseKeyOf(String key) {
        return ValkeyKeys.lease(cfg.namespace(), key);
    }

    /** The channel on which a turn at {@code key} reserved for the process queued as {@code engine} is announced. */
    String turnChannelOf(String key, String engine) {
        return ValkeyKeys.turnChannel(ValkeyKeys.lease(cfg.namespace(), key), engine);
    }

    /** The Valkey key that holds the fencing counter of {@code key}. */
    String fenceKeyOf(String key) {
        return ValkeyKeys.fence(cfg.namespace(), key);
    }

    /** The Valkey key that marks {@code key} as waited for (set by a refused acquire, for 2 s). */
    String waitingKeyOf(String key) {
        return ValkeyKeys.waiting(cfg.namespace(), key);
    }

    /** The Valkey list of the processes queued for {@code key}, oldest first. */
    String queueKeyOf(String key) {
        return ValkeyKeys.queue(cfg.namespace(), key);
    }

    /** The underlying GLIDE client (the first, with several {@link ValkeyConfig#clients()}), for diagnostics. Do not close it. */
    BaseClient client() {
        return link.client();
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String key, String owner, Duration ttl, boolean fencingToken) {
        return grant(new Op(
                Op.ACQUIRE, key, cfg.namespace(), owner, ttl.toMillis(), fencingToken ? "1" : "0", cfg.isCluster()));
    }

    /** A waiting process's attempt: it also takes a turn reserved for {@code queuedAs}, and queues it if refused. */
    @Override
    public CompletableFuture<AcquireResult> tryAcquire(
            String key, String owner, Duration ttl, boolean fencingToken, String queuedAs) {
        return grant(new Op(
                Op.ACQUIRE,
                key,
                cfg.namespace(),
                owner,
                ttl.toMillis(),
                (fencingToken ? "1:" : "0:") + queuedAs,
                cfg.isCluster()));
    }

    /**
     * The acquire with {@code fireKey}: the script answers {@link AcquireResult.AlreadyDone} when the lease key holds
     * {@code d:<fireKey>}, the marker of {@link #releaseCompleted}, and takes a marker of another fire as a free key. The
     * coordinator's fire keys carry its ledger's id ({@code <ledgerId>/<fireKey>}), so a marker of another ledger that
     * shares the namespace is a marker of another fire.
     */
    @Override
    public CompletableFuture<AcquireResult> tryAcquireFire(
            String key, String owner, Duration ttl, boolean fencingToken, String fireKey, @Nullable String queuedAs) {
        return grant(new Op(
                Op.ACQUIRE_FIRE,
                key,
                cfg.namespace(),
                owner,
                ttl.toMillis(),
                (fencingToken ? "1:" : "0:") + (queuedAs == null ? "" : queuedAs) + ":" + fireKey,
                cfg.isCluster()));
    }

    /**
     * One script call: if {@code owner} holds the lease, its value becomes {@code d:<fireKey>} with PX {@code keep}, and
     * waiters are told as by a release that frees the key (the marker is no holder: the queue is not served).
     */
    @Override
    public CompletableFuture<Boolean> releaseCompleted(String key, String owner, String fireKey, Duration keep) {
        return submit(
                new Op(Op.RELEASE_COMPLETED, key, cfg.namespace(), owner, keep.toMillis(), fireKey, cfg.isCluster()));
    }

    @Override
    public CompletableFuture<Boolean> renew(String key, String owner, Duration ttl) {
        return submit(new Op(Op.RENEW, key, cfg.namespace(), owner, ttl.toMillis(), "", cfg.isCluster()));
    }

    /** Passes the key to the next queued process's turn when someone waits (see {@link #releaseTurn}). */
    @Override
    public CompletableFuture<Boolean> release(String key, String owner) {
        return submit(new Op(Op.RELEASE, key, cfg.namespace(), owner, turnMillis, "", cfg.isCluster()));
    }

    @Override
    public boolean queuesWaiters() {
        return true;
    }

    /**
     * One script call: if someone waits (the marker), the next engine in the key's queue gets a reserved turn (the
     * lease's value becomes {@code q:<engine>} for half the request timeout, bounded to 50–250 ms) and is notified, and
     * {@code requeueAs} goes to the queue's tail; otherwise the lease is deleted.
     */
    @Override
    public CompletableFuture<TurnRelease> releaseTurn(String key, String owner, String requeueAs) {
        return submit(new Op(
                        Op.RELEASE,
                        key,
                        cfg.namespace(),
                        owner,
                        turnMillis,
                        requeueAs == null ? "" : requeueAs,
                        cfg.isCluster())
                .turn());
    }

    @Override
    public void leaveQueue(String key, String queuedAs) {
        submit(new Op(Op.LEAVE_QUEUE, key, cfg.namespace(), "", turnMillis, queuedAs, cfg.isCluster()));
    }

    @Override
    public CompletableFuture<AcquireResult> handOff(
            String key, String fromOwner, String toOwner, Duration ttl, boolean fencingToken) {
        return grant(new Op(
                Op.HAND_OFF,
                key,
                cfg.namespace(),
                fromOwner,
                ttl.toMillis(),
                (fencingToken ? "1:" : "0:") + toOwner,
                cfg.isCluster()));
    }

    /** One SET XX GET KEEPTTL: the owner check and the transfer in one command (the lease keeps its expiry). */
    @Override
    public CompletableFuture<AcquireResult> handOffKeepingExpiry(
            String key, String fromOwner, String toOwner, Duration ttl) {
        return grant(new Op(
                Op.HAND_OFF_KEEPING_EXPIRY, key, cfg.namespace(), fromOwner, ttl.toMillis(), toOwner, cfg.isCluster()));
    }

    /** The hand-off script replaces the owner in one step. */
    @Override
    public boolean atomicHandOff() {
        return true;
    }

    @Override
    public AutoCloseable subscribeReleases(String key, Runnable onRelease) {
        return notifier.subscribe(ValkeyKeys.lease(cfg.namespace(), key), null, onRelease);
    }

    @Override
    public boolean releasesReachUs(String key) {
        return notifier.isConfirmed(ValkeyKeys.lease(cfg.namespace(), key));
    }

    @Override
    public AutoCloseable subscribeReleases(String key, String queuedAs, Runnable onReleaseOrTurn) {
        return notifier.subscribe(ValkeyKeys.lease(cfg.namespace(), key), queuedAs, onReleaseOrTurn);
    }

    /**
     * DEL of the lease key, then a release notification on its channel (PUBLISH, or SPUBLISH in a cluster) so that
     * waiters try at once. Two commands, not the script: the lease is ended whoever holds it. An ACL user needs
     * {@code +del} and {@code +publish} (or {@code +spublish}), which Tenure's documented rules grant.
     */
    @Override
    public CompletableFuture<Boolean> evict(String key) {
        String lease = ValkeyKeys.lease(cfg.namespace(), key);
        String publish = cfg.isCluster() ? "SPUBLISH" : "PUBLISH";
        return ScriptCall.on(link.client(lease), new String[] {"DEL", lease}, lease)
                .thenCompose(deleted -> ScriptCall.on(link.client(lease), new String[] {publish, lease, "r"}, lease)
                        .handle((n, err) -> Long.valueOf(1L).equals(deleted))) // the notification is best effort
                .handle((deleted, err) -> {
                    if (err != null) {
                        throw new java.util.concurrent.CompletionException(
                                new dev.tenure.LeaseStoreUnavailableException(
                                        "deleting the Valkey lease of '" + key + "' failed: " + describe(err),
                                        key,
                                        ScriptCall.unwrap(err)));
                    }
                    return deleted;
                });
    }

    /** A GET of a key of the namespace that nobody writes ({@code {<namespace>:}probe}): allowed by Tenure's ACL rules. */
    @Override
    public CompletableFuture<Optional<String>> probe() {
        String key = ValkeyKeys.tag(cfg.namespace(), "") + "probe";
        try {
            return ScriptCall.on(link.client(), new String[] {"GET", key}, key)
                    .handle((v, err) -> err == null ? Optional.<String>empty() : Optional.of(describe(err)));
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(Optional.of(describe(e)));
        }
    }

    /** One line naming the server: {@code "Valkey 10.0.0.5:6379: WRONGPASS: ..."} ({@link ValkeyProblem}). */
    @Override
    public String describe(Throwable failure) {
        return ValkeyProblem.describe(cfg, failure);
    }

    @SuppressWarnings("unchecked")
    private static void failAll(List<Op> ops, Throwable e) {
        ops.forEach(op -> op.fail(e));
    }

    /** Sends {@code op} through its key's lane. */
    private <T> CompletableFuture<T> submit(Op op) {
        return submit(lanes.get(link.laneOf(op.leaseKey)), op);
    }

    /** Sends an acquire or a hand-off: through the grants' own connection with replica acks, else through its lane. */
    private <T> CompletableFuture<T> grant(Op op) {
        return acked != null ? submit(acked, op) : submit(op);
    }

    @SuppressWarnings("unchecked")
    private static <T> CompletableFuture<T> submit(CallBatcher<Op> to, Op op) {
        to.submit(op);
        return (CompletableFuture<T>) (CompletableFuture<?>) op.future;
    }

    @Override
    public void close() {
        notifier.close();
        link.close();
        timer.close();
    }
}
