package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;
import dev.tenure.ValkeyConfig.ScriptMode;

/**
 * The Valkey function that {@link ScriptMode#PRELOADED_FUNCTION} calls, for the administrator who installs it ahead of
 * time: {@link #install(ValkeyConfig)}, or {@code FUNCTION LOAD REPLACE} of {@link #library()} on every primary. The
 * library and the function are named after the lease script's hash, so a Tenure version whose script changed needs a
 * new install (old and new can be installed side by side during a rolling upgrade). Tenure never installs it itself.
 */
public final class ValkeyFunctions {

    private ValkeyFunctions() {}

    /**
     * The Valkey function library that {@link ScriptMode#PRELOADED_FUNCTION} calls: the lease script wrapped as one
     * function, named after the script's hash. An administrator loads it with {@code FUNCTION LOAD REPLACE <text>} on
     * every primary (or with {@link #install(ValkeyConfig)}).
     */
    public static String library() {
        return LeaseFunction.TEXT;
    }

    /** The name of the function that {@link ScriptMode#PRELOADED_FUNCTION} calls with {@code FCALL}. */
    public static String name() {
        return LeaseFunction.NAME;
    }

    /**
     * Installs {@link #library()} with {@code FUNCTION LOAD REPLACE}: on the server, or on every primary of a cluster
     * (replicas get it by replication). Run it as an administrator, once per Tenure version and after adding a primary
     * or restarting one without persistence. Blocks at most about the connection and request timeouts of
     * {@code adminConfig}.
     *
     * @param adminConfig how to reach Valkey as a user allowed to run {@code FUNCTION LOAD}
     * @throws dev.tenure.LeaseStoreUnavailableException if a server cannot be reached or refuses the load
     */
    public static void install(ValkeyConfig adminConfig) {
        LeaseFunction.install(adminConfig);
    }
}
