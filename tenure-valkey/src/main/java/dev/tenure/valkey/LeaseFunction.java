package dev.tenure.valkey;

import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.ValkeyConfig;
import dev.tenure.ValkeyConfig.ScriptMode;
import glide.api.BaseClient;
import glide.api.GlideClient;
import glide.api.GlideClusterClient;
import glide.api.models.ClusterValue;
import glide.api.models.configuration.RequestRoutingConfiguration.SimpleMultiNodeRoute;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The lease script as a Valkey function, for {@link ScriptMode#PRELOADED_FUNCTION}: the body of
 * {@link LeaseScript#SOURCE}, unchanged, as the callback of one function (a callback receives the keys and the
 * arguments as parameters, so they are named {@code KEYS} and {@code ARGV}). The library and the function are
 * named after the script's hash, so a changed script is a new library that needs a new install.
 */
final class LeaseFunction {

    static final String VERSION = LeaseScript.SHA.substring(0, 12);
    static final String LIBRARY = "tenure_" + VERSION;
    static final String NAME = "tenure_lease_" + VERSION;
    static final String TEXT = "#!lua name=" + LIBRARY + "\n"
            + "redis.register_function('" + NAME + "', function(KEYS, ARGV)\n"
            + LeaseScript.SOURCE
            + "end)\n";

    private LeaseFunction() {}

    /** What a call without the function says: which function, and how an administrator installs it. */
    static String missing() {
        return "the Valkey function " + NAME + " (library " + LIBRARY + ") is not installed, and this store runs in "
                + "ScriptMode.PRELOADED_FUNCTION. An administrator installs it once per Tenure version, on every primary: "
                + "ValkeyFunctions.install(adminConfig), or FUNCTION LOAD REPLACE with the text of "
                + "ValkeyFunctions.library()";
    }

    /** {@code FUNCTION LOAD REPLACE} on the server, or on every primary of a cluster, as the user of {@code admin}. */
    static void install(ValkeyConfig admin) {
        BaseClient c = null;
        try {
            c = GlideClients.create(admin, admin.addresses(), false, false, null)
                    .get(admin.connectionTimeout().toMillis() + 2000, TimeUnit.MILLISECONDS);
            String[] load = {"FUNCTION", "LOAD", "REPLACE", TEXT};
            long bound = admin.requestTimeout().toMillis() + 2000;
            List<Object> replies = c instanceof GlideClusterClient cc
                    ? List.copyOf(multi(cc.customCommand(load, SimpleMultiNodeRoute.ALL_PRIMARIES)
                            .get(bound, TimeUnit.MILLISECONDS)))
                    : List.of(((GlideClient) c).customCommand(load).get(bound, TimeUnit.MILLISECONDS));
            for (Object reply : replies) {
                if (!LIBRARY.equals(String.valueOf(reply))) {
                    throw new IllegalStateException("FUNCTION LOAD answered " + reply + " instead of " + LIBRARY);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failed(admin, e);
        } catch (Exception e) {
            throw failed(admin, ScriptCall.unwrap(e));
        } finally {
            GlideClients.closeQuietly(c);
        }
    }

    private static Collection<Object> multi(ClusterValue<Object> v) {
        return v.hasMultiData() ? v.getMultiValue().values() : List.of(v.getSingleValue());
    }

    private static LeaseStoreUnavailableException failed(ValkeyConfig admin, Throwable cause) {
        return new LeaseStoreUnavailableException(
                "could not install the Valkey function library " + LIBRARY + " through "
                        + admin + ": " + cause.getMessage() + " ("
                        + cause.getClass().getSimpleName()
                        + "). Check that every primary is reachable and that this user may run FUNCTION LOAD"
                        + " (e.g. the default user)",
                null,
                cause);
    }
}
