package dev.tenure.valkey;

import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.ValkeyConfig;
import glide.api.BaseClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Grants that count only once replicas have them ({@link ValkeyConfig#replicaAcks()}): acquires and hand-offs run on
 * a connection of their own, each call followed by {@code WAIT n timeout} on that same connection.
 *
 * <p>Why a connection of its own: WAIT blocks the connection that sends it, so on the shared one every renewal and
 * release would queue behind it for up to its timeout. Why the grants go there too: WAIT counts the replicas that
 * acknowledged the writes of the connection that sends it (the server compares their offsets with that client's own
 * last write offset), so a WAIT on a connection that wrote nothing answers at once and proves nothing. In a cluster
 * the WAIT goes to the primary of the slot that the script call went to.
 *
 * <p>Too few acknowledgements fail the grants (the engine then releases them: fail closed). This narrows the failover
 * window of asynchronous replication; it does not close it. Should the connection break and be re-established between
 * a grant and its WAIT, that WAIT counts nothing of the grant; this too is a narrowing, not a guarantee.
 *
 * <p>Callers send one batch at a time (WAIT would hold back a second batch's script call on the same connection past
 * its request timeout); operations that arrive meanwhile wait and go together in the next batch.
 */
final class AckedGrants implements AutoCloseable {

    private final ValkeyConfig cfg;
    private final ValkeyTimer timer;
    private final ScriptCall script;
    private final BiConsumer<List<Op>, Throwable> fail;
    private final String[] wait;
    private volatile CompletableFuture<? extends BaseClient> client;

    /** {@code fail} reports a failed call for its ops (typed errors, failover probe). */
    AckedGrants(
            ValkeyConfig cfg,
            List<String> addresses,
            ScriptCall script,
            BiConsumer<List<Op>, Throwable> fail,
            ValkeyTimer timer) {
        this.cfg = cfg;
        this.timer = timer;
        this.script = script;
        this.fail = fail;
        this.wait = new String[] {
            "WAIT",
            Integer.toString(cfg.replicaAcks()),
            Long.toString(cfg.replicaAckTimeout().toMillis())
        };
        this.client = GlideClients.create(cfg, addresses, true, false, null);
    }

    /** Writes {@code batch}, then WAITs where something was granted; completes each op. */
    CompletableFuture<Void> send(List<Op> batch) {
        List<List<Op>> groups = Op.bySlot(batch);
        return client.thenCompose(c -> writeThenWait(c, groups)).exceptionally(e -> {
            fail.accept(batch, e);
            return null;
        });
    }

    /** Every group's script call first, then the WAITs: a WAIT sent earlier would hold back a later write on its node. */
    private CompletableFuture<Void> writeThenWait(BaseClient c, List<List<Op>> groups) {
        List<CompletableFuture<Object>> written = new ArrayList<>();
        groups.forEach(g -> written.add(script.run(c, g)));
        CompletableFuture<?>[] settled = new CompletableFuture<?>[groups.size()];
        return CompletableFuture.allOf(
                        written.stream().map(f -> f.handle((r, e) -> null)).toArray(CompletableFuture[]::new))
                .thenCompose(x -> {
                    for (int i = 0; i < settled.length; i++) {
                        settled[i] = acknowledge(c, groups.get(i), written.get(i));
                    }
                    return CompletableFuture.allOf(settled);
                });
    }

    private CompletableFuture<Void> acknowledge(BaseClient c, List<Op> ops, CompletableFuture<Object> written) {
        return written.handle((res, err) -> {
                    Object[] values = err == null ? ScriptCall.values(ops, res) : null;
                    if (values == null) {
                        fail.accept(ops, ScriptCall.errorOf(res, err));
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    if (!anyGranted(ops, values)) {
                        Op.completeAll(ops, values);
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    return ScriptCall.on(c, wait, ops.get(0).leaseKey)
                            .handle((acks, e) -> settle(ops, values, acks, e));
                })
                .thenCompose(f -> f);
    }

    private Void settle(List<Op> ops, Object[] values, Object acks, Throwable err) {
        long got = acks instanceof Long n ? n : -1;
        for (int i = 0; i < ops.size(); i++) {
            Op op = ops.get(i);
            if (!op.grantedIn(values, i) || got >= cfg.replicaAcks()) {
                op.completeFrom(values, i);
            } else {
                op.fail(new LeaseStoreUnavailableException(
                        "lease '" + op.key + "' was granted but "
                                + (err != null
                                        ? "WAIT failed: "
                                                + ScriptCall.unwrap(err).getMessage()
                                        : "only " + got + " of " + cfg.replicaAcks()
                                                + " replicas acknowledged it within " + cfg.replicaAckTimeout())
                                + "; not treated as held",
                        op.key,
                        err));
            }
        }
        return null;
    }

    private static boolean anyGranted(List<Op> ops, Object[] values) {
        for (int i = 0; i < ops.size(); i++) {
            if (ops.get(i).grantedIn(values, i)) {
                return true;
            }
        }
        return false;
    }

    /** After a standalone failover: grants go to {@code primary} from now on; the old connection closes later. */
    void moveTo(String primary) {
        CompletableFuture<? extends BaseClient> old = client;
        client = GlideClients.create(cfg, List.of(primary), true, false, null);
        Duration linger = cfg.requestTimeout().multipliedBy(2).plus(cfg.replicaAckTimeout());
        timer.after(linger, () -> old.thenAccept(GlideClients::closeQuietly));
    }

    @Override
    public void close() {
        client.thenAccept(GlideClients::closeQuietly);
    }
}
