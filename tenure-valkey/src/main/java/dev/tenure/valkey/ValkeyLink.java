package dev.tenure.valkey;

import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.ValkeyConfig;
import glide.api.BaseClient;
import glide.api.GlideClusterClient;
import glide.api.models.ClusterBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections to Valkey and the one thing done over them: run a batch of operations through the lease
 * script (see {@link ScriptCall}). In a cluster a batch is split per slot and sent as one non-atomic pipeline.
 * With {@link ValkeyConfig#replicaAcks()}, grants go through {@link AckedGrants} on a connection of their own.
 * In standalone mode with several addresses it follows a promoted replica: when calls fail it asks every address
 * for its role and moves to the one that is primary (the grants' connection too), because GLIDE's standalone
 * client keeps the primary it found at creation.
 *
 * <p>It holds {@link ValkeyConfig#clients()} GLIDE clients, here called lanes. Every operation on a key takes the lane
 * of the key's hash ({@link #laneOf}), and the store keeps one batcher per lane. Why by key, not round robin or least
 * in flight: Tenure relies on the order of two calls of one key in one place only. A release, a hand-off and an
 * acquire each wait for the call before them, and a clean-up release that may overtake its acquire looks again
 * later. But {@code leaveQueue} is sent without waiting. A queued acquire of the same key sent right after it could
 * overtake it on another connection; the leave would then take this process out of the key's queue while a thread
 * still waits, and that thread would poll until a refused attempt queues it again, at the back. On one connection
 * this does not happen in practice, though GLIDE does not promise it (it spawns each request as a task of its own).
 * Keeping a key on one lane also keeps a hot key's calls coalesced in one batcher, as with one client. The cost: a
 * few hot keys may share a lane while another idles.
 */
final class ValkeyLink implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ValkeyLink.class);

    private final ValkeyConfig cfg;
    private final ValkeyTimer timer;
    private final ScriptCall script;
    private final @Nullable FailoverProbe probe;
    /** Null without {@link ValkeyConfig#replicaAcks()}. */
    private final @Nullable AckedGrants acked;

    private final List<Consumer<String>> onSwitch = new CopyOnWriteArrayList<>();
    /** One client per lane; a failover replaces them all at once. */
    private volatile BaseClient[] clients;

    private volatile boolean closed;

    private ValkeyLink(
            ValkeyConfig cfg, BaseClient[] clients, List<String> start, @Nullable String primary, ValkeyTimer timer) {
        this.cfg = cfg;
        this.timer = timer;
        this.clients = clients;
        this.script = new ScriptCall(cfg);
        this.probe =
                !cfg.isCluster() && cfg.addresses().size() > 1 ? new FailoverProbe(cfg, primary, this::switchTo) : null;
        this.acked = cfg.replicaAcks() > 0 ? new AckedGrants(cfg, start, script, this::fail, timer) : null;
        if (acked != null) {
            onSwitch.add(acked::moveTo);
        }
    }

    /** Connects lazily: works even while Valkey is down (calls then time out with a typed error). */
    static ValkeyLink open(ValkeyConfig cfg, ValkeyTimer timer) {
        List<String> start = cfg.addresses();
        String primary = null;
        if (!cfg.isCluster() && start.size() > 1) {
            primary = FailoverProbe.findPrimary(cfg);
            if (primary != null) {
                start = List.of(primary);
            }
        }
        try {
            return new ValkeyLink(cfg, createAll(cfg, start, true), start, primary, timer);
        } catch (ExecutionException e) {
            throw new LeaseStoreUnavailableException(
                    "cannot create a Valkey client for " + cfg + ": " + e.getCause(), null, e.getCause());
        } catch (Exception e) {
            throw new LeaseStoreUnavailableException("cannot create a Valkey client for " + cfg + ": " + e, null, e);
        }
    }

    /** One client per lane, created together; if one cannot be created, those that were are closed. */
    private static BaseClient[] createAll(ValkeyConfig cfg, List<String> addresses, boolean lazy) throws Exception {
        List<CompletableFuture<? extends BaseClient>> pending = new ArrayList<>();
        for (int i = 0; i < cfg.clients(); i++) {
            pending.add(GlideClients.create(cfg, addresses, lazy, false, null));
        }
        BaseClient[] created = new BaseClient[pending.size()];
        try {
            long deadline = System.nanoTime()
                    + TimeUnit.MILLISECONDS.toNanos(cfg.connectionTimeout().toMillis() + 2000);
            for (int i = 0; i < created.length; i++) {
                created[i] = pending.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            return created;
        } catch (Exception e) {
            pending.forEach(f -> f.thenAccept(GlideClients::closeQuietly)); // now, or when a late one completes
            throw e;
        }
    }

    /** The first lane's client (diagnostics, probes). */
    BaseClient client() {
        return clients[0];
    }

    /** The client of {@code leaseKey}'s lane. */
    BaseClient client(String leaseKey) {
        return clients[laneOf(leaseKey)];
    }

    int lanes() {
        return cfg.clients();
    }

    /** The lane of every operation on the key whose lease key is {@code leaseKey}. */
    int laneOf(String leaseKey) {
        return Math.floorMod(leaseKey.hashCode(), cfg.clients());
    }

    /**
     * Runs {@code batch} on lane {@code lane}'s client and completes each op; the returned future completes when all are
     * done. Every op of the batch is of that lane.
     */
    CompletableFuture<Void> send(int lane, List<Op> batch) {
        if (closed) {
            return closedFailure();
        }
        // not with a preloaded function: a missing function must fail the acquire, not the release that follows it
        if (batch.size() == 1
                && batch.get(0).isPlainAcquire()
                && cfg.scriptMode() == ValkeyConfig.ScriptMode.EVALSHA_LOAD_ON_MISS) {
            return plainAcquire(lane, batch);
        }
        if (batch.size() == 1 && batch.get(0).code == Op.RELEASE) {
            return loneRelease(lane, batch);
        }
        List<List<Op>> groups = Op.bySlot(batch);
        if (groups.size() == 1) {
            return script.run(clients[lane], batch).handle((res, err) -> settle(batch, res, err));
        }
        return pipeline(lane, groups, true);
    }

    /**
     * A lone acquire without a fencing token or a queue: the script's first command on its own, {@code SET key owner NX
     * GET PX ttl} (no script call: less work on both sides, as a textbook lock's acquire). Granted: done. Held: the
     * script runs the acquire as usual (it may grant it now; else it marks the key as waited for and reads the
     * holder's time left).
     */
    private CompletableFuture<Void> plainAcquire(int lane, List<Op> batch) {
        Op op = batch.get(0);
        String[] set = {"SET", op.leaseKey, op.owner, "NX", "GET", "PX", op.ttlMillis};
        return orBatchForm(lane, batch, ScriptCall.on(clients[lane], set, op.leaseKey), res -> {
            if (res != null) {
                return false;
            }
            op.complete(1L, 0L, "");
            return true;
        });
    }

    /**
     * A lone release: the script's short form ({@link ScriptCall#loneRelease}), whose answer is one integer. If someone
     * waits (2: nothing changed), the release goes again in the batch form, which passes the key to the next queued
     * process or frees it and tells the waiters.
     */
    private CompletableFuture<Void> loneRelease(int lane, List<Op> batch) {
        Op op = batch.get(0);
        return orBatchForm(lane, batch, script.run(clients[lane], script.loneRelease(op), op.leaseKey), res -> {
            if (Long.valueOf(2L).equals(res)) {
                return false;
            }
            if (res instanceof Long n && (n == 0L || n == 1L)) {
                op.complete(n, 0L, "");
            } else {
                fail(batch, ScriptCall.errorOf(res, null));
            }
            return true;
        });
    }

    /**
     * A lone op's first call, {@code first}: {@code answered} ends the op from its reply and says so, or says that the
     * batch form must run; a failed call fails the op.
     */
    private CompletableFuture<Void> orBatchForm(
            int lane, List<Op> batch, CompletableFuture<Object> first, Predicate<Object> answered) {
        return first.handle((res, err) -> {
                    if (err != null) {
                        fail(batch, err);
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    if (answered.test(res)) {
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    return script.run(clients[lane], batch).handle((r, e) -> settle(batch, r, e));
                })
                .thenCompose(f -> f);
    }

    /** Runs {@code batch} (acquires and hand-offs) on the grants' own connection, each grant followed by WAIT. */
    CompletableFuture<Void> sendAcked(List<Op> batch) {
        return closed
                ? closedFailure()
                : Objects.requireNonNull(acked, "replica acknowledgements are off")
                        .send(batch);
    }

    private static CompletableFuture<Void> closedFailure() {
        return CompletableFuture.failedFuture(
                new LeaseStoreUnavailableException("the Valkey lease store is closed", null, null));
    }

    /** Cluster, several slots: one non-atomic pipeline, one script call per slot; groups that got NOSCRIPT are retried once. */
    private CompletableFuture<Void> pipeline(int lane, List<List<Op>> groups, boolean mayLoad) {
        ClusterBatch b = new ClusterBatch(false);
        for (List<Op> g : groups) {
            b.customCommand(script.command(g));
        }
        BaseClient client = clients[lane];
        return ((GlideClusterClient) client)
                .exec(b, false)
                .handle((results, err) -> {
                    if (err != null) {
                        groups.forEach(g -> settle(g, null, err));
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    List<List<Op>> retry = new ArrayList<>();
                    for (int i = 0; i < groups.size(); i++) {
                        Object r = results[i];
                        if (r instanceof Throwable t && mayLoad && script.needsLoad(t)) {
                            retry.add(groups.get(i));
                        } else {
                            settle(
                                    groups.get(i),
                                    r instanceof Throwable ? null : r,
                                    r instanceof Throwable t ? t : null);
                        }
                    }
                    if (retry.isEmpty()) {
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    return script.load(client)
                            .handle((x, loadErr) -> {
                                if (loadErr != null) {
                                    retry.forEach(g -> settle(g, null, loadErr));
                                    return CompletableFuture.<Void>completedFuture(null);
                                }
                                return pipeline(lane, retry, false);
                            })
                            .thenCompose(f -> f);
                })
                .thenCompose(f -> f);
    }

    private @Nullable Void settle(List<Op> ops, @Nullable Object res, @Nullable Throwable err) {
        Object[] values = err == null ? ScriptCall.values(ops, res) : null;
        if (values != null) {
            Op.completeAll(ops, values);
        } else {
            fail(ops, ScriptCall.errorOf(res, err));
        }
        return null;
    }

    /** Fails every op of a call that failed with {@code err}, and lets the failover probe look for a new primary. */
    private void fail(List<Op> ops, Throwable err) {
        if (probe != null && !closed) {
            probe.trigger();
        }
        for (Op op : ops) {
            op.fail(script.failure(op, err));
        }
    }

    /** Moves to {@code primary}: new clients there, the old ones closed once in-flight calls had time to end. */
    private boolean switchTo(String primary) {
        if (closed) {
            return false;
        }
        try {
            BaseClient[] fresh = createAll(cfg, List.of(primary), false);
            BaseClient[] old = clients;
            clients = fresh;
            LOG.warn("Valkey primary moved: now using {}", primary);
            onSwitch.forEach(l -> l.accept(primary));
            timer.after(cfg.requestTimeout().multipliedBy(2), () -> closeAll(old));
            return true;
        } catch (Exception e) {
            LOG.warn("could not connect to the new Valkey primary {}: {}", primary, e.toString());
            return false;
        }
    }

    private static void closeAll(BaseClient[] cs) {
        for (BaseClient c : cs) {
            GlideClients.closeQuietly(c);
        }
    }

    /** Runs {@code listener} with the new primary's address after a standalone failover switch. */
    void onPrimarySwitch(Consumer<String> listener) {
        onSwitch.add(listener);
    }

    @Override
    public void close() {
        closed = true;
        if (probe != null) {
            probe.close();
        }
        if (acked != null) {
            acked.close();
        }
        closeAll(clients);
    }
}
