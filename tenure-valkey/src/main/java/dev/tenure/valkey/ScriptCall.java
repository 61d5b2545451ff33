package dev.tenure.valkey;

import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.ValkeyConfig;
import dev.tenure.ValkeyConfig.ScriptMode;
import glide.api.BaseClient;
import glide.api.GlideClient;
import glide.api.GlideClusterClient;
import glide.api.models.ClusterValue;
import glide.api.models.configuration.RequestRoutingConfiguration.SimpleMultiNodeRoute;
import glide.api.models.configuration.RequestRoutingConfiguration.SlotKeyRoute;
import glide.api.models.configuration.RequestRoutingConfiguration.SlotType;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * One call of the lease script for operations of one slot, in the configured {@link ScriptMode}: EVALSHA, loading
 * the script when a server answers NOSCRIPT, or FCALL of the function an administrator installed (never loaded
 * here). A cluster call goes to the primary of the operations' slot. Stateless apart from the configuration.
 */
final class ScriptCall {

    private final ScriptMode mode;
    private final String pubMode;

    ScriptCall(ValkeyConfig cfg) {
        this.mode = cfg.scriptMode();
        this.pubMode = cfg.isCluster() ? "s" : "p";
    }

    /** {@code EVALSHA sha} or {@code FCALL name}, then the number of keys, the keys and the arguments of {@code ops}. */
    String[] command(List<Op> ops) {
        int n = ops.size();
        String[] a = new String[3 + 4 * n + 1 + 4 * n];
        boolean function = mode == ScriptMode.PRELOADED_FUNCTION;
        a[0] = function ? "FCALL" : "EVALSHA";
        a[1] = function ? LeaseFunction.NAME : LeaseScript.SHA;
        a[2] = Integer.toString(4 * n);
        int k = 3;
        for (Op op : ops) {
            a[k++] = op.leaseKey;
            a[k++] = op.fenceKey;
            a[k++] = op.waitingKey;
            a[k++] = op.queueKey;
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

    /**
     * The script's short form for one release (see {@link LeaseScript}): the lease and the marker as keys, the owner as
     * the one argument. Answers 0 (not ours), 1 (deleted: nobody waits) or 2 (someone waits: nothing changed).
     */
    String[] loneRelease(Op op) {
        boolean function = mode == ScriptMode.PRELOADED_FUNCTION;
        return new String[] {
            function ? "FCALL" : "EVALSHA",
            function ? LeaseFunction.NAME : LeaseScript.SHA,
            "2",
            op.leaseKey,
            op.waitingKey,
            op.owner
        };
    }

    /** Runs {@code ops} (one slot) through {@code c}; after a NOSCRIPT, loads the script and tries once more. */
    CompletableFuture<Object> run(BaseClient c, List<Op> ops) {
        return run(c, command(ops), ops.get(0).leaseKey);
    }

    /** Runs the script call {@code cmd} on the primary of {@code key}; after a NOSCRIPT, loads the script and tries once more. */
    CompletableFuture<Object> run(BaseClient c, String[] cmd, String key) {
        return on(c, cmd, key)
                .handle((res, err) -> {
                    if (err == null) {
                        return CompletableFuture.completedFuture(res);
                    }
                    return needsLoad(err)
                            ? load(c).thenCompose(x -> on(c, cmd, key))
                            : CompletableFuture.<Object>failedFuture(err);
                })
                .thenCompose(f -> f);
    }

    /** Whether {@code t} is a NOSCRIPT that loading the script cures (EVALSHA mode only). */
    boolean needsLoad(Throwable t) {
        return mode == ScriptMode.EVALSHA_LOAD_ON_MISS && says(t, "NOSCRIPT");
    }

    /** SCRIPT LOAD, on every primary of a cluster. */
    CompletableFuture<Object> load(BaseClient c) {
        String[] load = {"SCRIPT", "LOAD", LeaseScript.SOURCE};
        if (c instanceof GlideClusterClient cc) {
            return cc.customCommand(load, SimpleMultiNodeRoute.ALL_PRIMARIES).thenApply(v -> v);
        }
        return ((GlideClient) c).customCommand(load);
    }

    /** The typed error for {@code op} after {@code err}; a missing function says how to install it. */
    LeaseStoreUnavailableException failure(Op op, Throwable err) {
        Throwable cause = unwrap(err);
        String what = mode == ScriptMode.PRELOADED_FUNCTION && says(cause, "FUNCTION NOT FOUND")
                ? LeaseFunction.missing()
                : cause.getMessage() + " (" + cause.getClass().getSimpleName() + ")";
        return new LeaseStoreUnavailableException(
                "Valkey call for lease '" + op.key + "' failed: " + what, op.key, cause);
    }

    /** {@code cmd} on the primary that serves {@code routeKey} (the only primary, standalone). */
    static CompletableFuture<Object> on(BaseClient c, String[] cmd, String routeKey) {
        if (c instanceof GlideClusterClient cc) {
            return cc.customCommand(cmd, new SlotKeyRoute(routeKey, SlotType.PRIMARY))
                    .thenApply(ClusterValue::getSingleValue);
        }
        return ((GlideClient) c).customCommand(cmd);
    }

    /** The script's flat reply for {@code ops} (three values each), or null if {@code res} is not one. */
    static Object @Nullable [] values(List<Op> ops, @Nullable Object res) {
        return res instanceof Object[] v && v.length == 3 * ops.size() ? v : null;
    }

    /** What went wrong with a call that answered {@code res} or failed with {@code err}. */
    static Throwable errorOf(@Nullable Object res, @Nullable Throwable err) {
        return err != null ? err : new IllegalStateException("unexpected script reply " + res);
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static boolean says(Throwable t, String what) {
        String m = unwrap(t).getMessage();
        return m != null && m.toUpperCase(Locale.ROOT).contains(what);
    }
}
