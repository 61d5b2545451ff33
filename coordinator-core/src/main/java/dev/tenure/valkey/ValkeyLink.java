package dev.tenure.valkey;

import dev.tenure.LeaseStoreUnavailableException;
import glide.api.BaseClient;
import glide.api.GlideClient;
import glide.api.GlideClusterClient;
import glide.api.models.ClusterBatch;
import glide.api.models.ClusterValue;
import glide.api.models.configuration.RequestRoutingConfiguration.SimpleMultiNodeRoute;
import glide.api.models.configuration.RequestRoutingConfiguration.SlotKeyRoute;
import glide.api.models.configuration.RequestRoutingConfiguration.SlotType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The connection to Valkey and the one thing done over it: run a batch of operations through the lease
 * script (EVALSHA, loading the script on NOSCRIPT). In a cluster a batch is split per slot and sent as one
 * non-atomic pipeline. In standalone mode with several addresses it follows a promoted replica: when calls
 * fail it asks every address for its role and moves to the one that is primary, because GLIDE's standalone
 * client keeps the primary it found at creation.
 */
final class ValkeyLink implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ValkeyLink.class);

    private final ValkeyConfig cfg;
    private final String pubMode;
    private final FailoverProbe probe;
    private volatile BaseClient client;
    private volatile boolean closed;

    private ValkeyLink(ValkeyConfig cfg, BaseClient client, String primary) {
        this.cfg = cfg;
        this.client = client;
        this.pubMode = cfg.isCluster() ? "s" : "p";
        this.probe = !cfg.isCluster() && cfg.addresses().size() > 1 ? new FailoverProbe(cfg, primary, this::switchTo) : null;
    }

    /** Connects lazily: works even while Valkey is down (calls then time out with a typed error). */
    static ValkeyLink open(ValkeyConfig cfg) {
        List<String> start = cfg.addresses();
        String primary = null;
        if (!cfg.isCluster() && start.size() > 1) {
            primary = FailoverProbe.findPrimary(cfg);
            if (primary != null) {
                start = List.of(primary);
            }
        }
        try {
            BaseClient c = GlideClients.create(cfg, start, true, false, null)
                    .get(cfg.connectionTimeout().toMillis() + 2000, TimeUnit.MILLISECONDS);
            return new ValkeyLink(cfg, c, primary);
        } catch (ExecutionException e) {
            throw new LeaseStoreUnavailableException("cannot create a Valkey client for " + cfg + ": " + e.getCause(), null, e.getCause());
        } catch (Exception e) {
            throw new LeaseStoreUnavailableException("cannot create a Valkey client for " + cfg + ": " + e, null, e);
        }
    }

    BaseClient client() {
        return client;
    }

    /** Runs {@code batch} and completes each op; the returned future completes when all are done. */
    CompletableFuture<Void> send(List<Op> batch) {
        if (closed) {
            return CompletableFuture.failedFuture(new LeaseStoreUnavailableException("the Valkey lease store is closed", null, null));
        }
        if (!cfg.isCluster()) {
            return evalWithLoad(batch).handle((res, err) -> settle(batch, res, err));
        }
        Map<Integer, List<Op>> bySlot = new LinkedHashMap<>();
        for (Op op : batch) {
            bySlot.computeIfAbsent(op.slot, s -> new ArrayList<>()).add(op);
        }
        if (bySlot.size() == 1) {
            return evalWithLoad(batch).handle((res, err) -> settle(batch, res, err));
        }
        return pipeline(new ArrayList<>(bySlot.values()), true);
    }

    private CompletableFuture<Object> eval(List<Op> ops) {
        String[] args = encode(ops);
        BaseClient c = client;
        if (c instanceof GlideClusterClient cc) {
            return cc.customCommand(args, new SlotKeyRoute(ops.get(0).leaseKey, SlotType.PRIMARY)).thenApply(ClusterValue::getSingleValue);
        }
        return ((GlideClient) c).customCommand(args);
    }

    private CompletableFuture<Object> evalWithLoad(List<Op> ops) {
        return eval(ops).handle((res, err) -> {
            if (err == null) {
                return CompletableFuture.completedFuture(res);
            }
            if (isNoScript(err)) {
                return loadScript().thenCompose(x -> eval(ops));
            }
            return CompletableFuture.<Object>failedFuture(err);
        }).thenCompose(f -> f);
    }

    /** Cluster, several slots: one non-atomic pipeline, one EVALSHA per slot; groups that got NOSCRIPT are retried once. */
    private CompletableFuture<Void> pipeline(List<List<Op>> groups, boolean mayLoad) {
        ClusterBatch b = new ClusterBatch(false);
        for (List<Op> g : groups) {
            b.customCommand(encode(g));
        }
        return ((GlideClusterClient) client).exec(b, false).handle((results, err) -> {
            if (err != null) {
                groups.forEach(g -> settle(g, null, err));
                return CompletableFuture.<Void>completedFuture(null);
            }
            List<List<Op>> retry = new ArrayList<>();
            for (int i = 0; i < groups.size(); i++) {
                Object r = results[i];
                if (r instanceof Throwable t && mayLoad && isNoScript(t)) {
                    retry.add(groups.get(i));
                } else {
                    settle(groups.get(i), r instanceof Throwable ? null : r, r instanceof Throwable t ? t : null);
                }
            }
            if (retry.isEmpty()) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            return loadScript().handle((x, loadErr) -> {
                if (loadErr != null) {
                    retry.forEach(g -> settle(g, null, loadErr));
                    return CompletableFuture.<Void>completedFuture(null);
                }
                return pipeline(retry, false);
            }).thenCompose(f -> f);
        }).thenCompose(f -> f);
    }

    private CompletableFuture<Object> loadScript() {
        String[] load = {"SCRIPT", "LOAD", LeaseScript.SOURCE};
        BaseClient c = client;
        if (c instanceof GlideClusterClient cc) {
            return cc.customCommand(load, SimpleMultiNodeRoute.ALL_PRIMARIES).thenApply(v -> v);
        }
        return ((GlideClient) c).customCommand(load);
    }

    private String[] encode(List<Op> ops) {
        int n = ops.size();
        String[] a = new String[3 + 3 * n + 1 + 4 * n];
        a[0] = "EVALSHA";
        a[1] = LeaseScript.SHA;
        a[2] = Integer.toString(3 * n);
        int k = 3;
        for (Op op : ops) {
            a[k++] = op.leaseKey;
            a[k++] = op.fenceKey;
            a[k++] = op.waitingKey;
        }
        a[k++] = pubMode;
        for (Op op : ops) {
            a[k++] = String.valueOf(op.code);
            a[k++] = op.owner;
            a[k++] = op.ttlMillis;
            a[k++] = op.aux;
        }
        return a;
    }

    private Void settle(List<Op> ops, Object res, Throwable err) {
        if (err == null && res instanceof Object[] values && values.length == 3 * ops.size()) {
            if (cfg.replicaAcks() > 0 && anyGrant(ops, values)) {
                awaitReplicas(ops, values);
                return null;
            }
            for (int i = 0; i < ops.size(); i++) {
                ops.get(i).complete(values[3 * i], values[3 * i + 1], values[3 * i + 2]);
            }
            return null;
        }
        Throwable cause = unwrap(err != null ? err : new IllegalStateException("unexpected script reply " + res));
        if (probe != null && !closed) {
            probe.trigger();
        }
        for (Op op : ops) {
            op.fail(new LeaseStoreUnavailableException("Valkey call for lease '" + op.key + "' failed: " + cause.getMessage()
                    + " (" + cause.getClass().getSimpleName() + ")", op.key, cause));
        }
        return null;
    }

    private static boolean isGrant(Op op, Object[] values, int i) {
        return (op.code == Op.ACQUIRE || op.code == Op.HAND_OFF) && Long.valueOf(1L).equals(values[3 * i]);
    }

    private static boolean anyGrant(List<Op> ops, Object[] values) {
        for (int i = 0; i < ops.size(); i++) {
            if (isGrant(ops.get(i), values, i)) {
                return true;
            }
        }
        return false;
    }

    /**
     * WAIT for the configured number of replicas before reporting grants: a grant no replica has seen can vanish
     * in a failover. Too few acknowledgements fail the grants (the engine then releases them: fail closed).
     * This narrows the failover window; it does not close it (replication stays asynchronous).
     */
    private void awaitReplicas(List<Op> ops, Object[] values) {
        String[] wait = {"WAIT", Integer.toString(cfg.replicaAcks()), Long.toString(cfg.replicaAckTimeout().toMillis())};
        BaseClient c = client;
        CompletableFuture<Object> acks = c instanceof GlideClusterClient cc
                ? cc.customCommand(wait, new SlotKeyRoute(ops.get(0).leaseKey, SlotType.PRIMARY)).thenApply(ClusterValue::getSingleValue)
                : ((GlideClient) c).customCommand(wait);
        acks.whenComplete((n, e) -> {
            long got = n instanceof Long l ? l : -1;
            for (int i = 0; i < ops.size(); i++) {
                Op op = ops.get(i);
                if (!isGrant(op, values, i) || got >= cfg.replicaAcks()) {
                    op.complete(values[3 * i], values[3 * i + 1], values[3 * i + 2]);
                } else {
                    op.fail(new LeaseStoreUnavailableException("lease '" + op.key + "' was granted but "
                            + (e != null ? "WAIT failed: " + unwrap(e).getMessage() : "only " + got + " of "
                            + cfg.replicaAcks() + " replicas acknowledged it within " + cfg.replicaAckTimeout())
                            + "; not treated as held", op.key, e));
                }
            }
        });
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static boolean isNoScript(Throwable t) {
        String m = unwrap(t).getMessage();
        return m != null && m.toUpperCase(java.util.Locale.ROOT).contains("NOSCRIPT");
    }

    /** Moves to {@code primary}: a new client there, the old one closed once in-flight calls had time to end. */
    private boolean switchTo(String primary) {
        if (closed) {
            return false;
        }
        try {
            BaseClient fresh = GlideClients.create(cfg, List.of(primary), false, false, null)
                    .get(cfg.connectionTimeout().toMillis() + 2000, TimeUnit.MILLISECONDS);
            BaseClient old = client;
            client = fresh;
            LOG.warn("Valkey primary moved: now using {}", primary);
            onSwitch.forEach(l -> l.accept(primary));
            CompletableFuture.delayedExecutor(cfg.requestTimeout().toMillis() * 2, TimeUnit.MILLISECONDS)
                    .execute(() -> GlideClients.closeQuietly(old));
            return true;
        } catch (Exception e) {
            LOG.warn("could not connect to the new Valkey primary {}: {}", primary, e.toString());
            return false;
        }
    }

    private final List<Consumer<String>> onSwitch = new java.util.concurrent.CopyOnWriteArrayList<>();

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
        GlideClients.closeQuietly(client);
    }
}
