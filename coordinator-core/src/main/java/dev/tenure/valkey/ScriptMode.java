package dev.tenure.valkey;

/**
 * How Tenure runs its lease script on Valkey, and so which permissions its ACL user needs (see {@code docs/acl.md}).
 * Both modes run the same Lua body; a store and its administrator must agree on the mode.
 */
public enum ScriptMode {

    /**
     * The default: {@code EVALSHA} of the script's SHA-1; when a server answers {@code NOSCRIPT} (first use, restart,
     * failover, {@code SCRIPT FLUSH}) Tenure loads the script itself ({@code SCRIPT LOAD}, on every primary of a
     * cluster) and tries once more. Needs {@code +evalsha +script|load}, which also lets the user load and run any Lua
     * of its own, for instance a script that loops and so hangs the server.
     */
    EVALSHA_LOAD_ON_MISS,

    /**
     * {@code FCALL} of a Valkey function that an administrator installed ahead of time, with
     * {@link ValkeyLeaseStore#installFunction(ValkeyConfig)} or {@code FUNCTION LOAD REPLACE} of
     * {@link ValkeyLeaseStore#functionLibrary()}, on every primary of a cluster. Needs only {@code +fcall}: the user
     * cannot run Lua of its own. Functions are kept in RDB and AOF files and replicated to replicas, so a restart with
     * persistence or a failover keeps them. The function's name carries a hash of the script, so a Tenure version
     * with a changed script needs a new install (old and new can be installed side by side during a rolling upgrade).
     * Without the function every call fails with {@link dev.tenure.LeaseStoreUnavailableException} naming the
     * function and how to install it; Tenure never installs it itself.
     */
    PRELOADED_FUNCTION
}
