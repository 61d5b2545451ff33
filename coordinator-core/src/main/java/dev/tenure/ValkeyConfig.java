package dev.tenure;

import dev.tenure.internal.HostPort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How to reach Valkey. Immutable; build with {@link #standalone(String...)} or {@link #cluster(String...)}.
 *
 * <table>
 * <caption>Knobs</caption>
 * <tr><th>knob</th><th>default</th><th>meaning</th></tr>
 * <tr><td>addresses</td><td>-</td><td>{@code host:port} list. Standalone: the primary and its replicas (Tenure
 *     reconnects to a promoted replica). Cluster: any seed nodes.</td></tr>
 * <tr><td>requestTimeout</td><td>500 ms</td><td>per call; a call that times out may still have executed
 *     (Tenure cleans up such acquires)</td></tr>
 * <tr><td>connectionTimeout</td><td>1 s</td><td>TCP connect + handshake</td></tr>
 * <tr><td>reconnect back-off</td><td>10, 20, 40, 80, 160 ms then 160 ms</td><td>short, so leases work again
 *     within about 0.2 s of Valkey coming back</td></tr>
 * <tr><td>namespace</td><td>{@code tenure}</td><td>prefix inside every key's hash tag:
 *     {@code {<namespace>:<key>}:lease}. A namespace belongs to a ledger (a Tenure database and schema) only in what
 *     it holds: completed-fire markers carry their ledger's id and answer for it alone, but leases of one key exclude
 *     each other whatever ledger their holders use. Give each ledger its own namespace</td></tr>
 * <tr><td>maxInFlightBatches</td><td>2</td><td>script calls in flight at once, per client; further operations
 *     wait and are coalesced into the next call</td></tr>
 * <tr><td>maxBatchSize</td><td>128</td><td>operations per script call</td></tr>
 * <tr><td>clients</td><td>1</td><td>GLIDE clients for the script calls, 1 to 16, each with its own connection. A key's
 *     operations always use the same one; {@code maxInFlightBatches} applies to each</td></tr>
 * <tr><td>tls, username/password, clientName</td><td>off, none, {@code tenure}</td><td>TLS, ACL user, CLIENT
 *     SETNAME</td></tr>
 * <tr><td>replicaAcks</td><td>0, 100 ms</td><td>WAIT for this many replicas after a grant; fewer fail the
 *     acquire. Grants and their WAIT use a connection of their own, one call at a time</td></tr>
 * <tr><td>scriptMode</td><td>{@link ScriptMode#EVALSHA_LOAD_ON_MISS}</td><td>EVALSHA, loading the script when
 *     missing; or {@link ScriptMode#PRELOADED_FUNCTION}: FCALL of a function an administrator installed</td></tr>
 * <tr><td>failoverProbeInterval</td><td>500 ms</td><td>standalone with several addresses: how often to look
 *     for a new primary while the current one fails</td></tr>
 * <tr><td>releaseChannelLinger</td><td>30 s</td><td>how long a release channel stays subscribed after its last
 *     waiter left, so a key waited for again soon costs no new subscription</td></tr>
 * </table>
 */
public final class ValkeyConfig {

    private final List<String> addresses;
    private final boolean cluster;
    private final boolean tls;
    private final @Nullable String username;
    private final @Nullable String password;
    private final String clientName;
    private final Duration requestTimeout;
    private final Duration connectionTimeout;
    private final String namespace;
    private final int maxInFlightBatches;
    private final int maxBatchSize;
    private final Duration failoverProbeInterval;
    private final int replicaAcks;
    private final Duration replicaAckTimeout;
    private final ScriptMode scriptMode;
    private final Duration releaseChannelLinger;
    private final int clients;

    private ValkeyConfig(Builder b) {
        this.scriptMode = b.scriptMode;
        this.replicaAcks = b.replicaAcks;
        this.replicaAckTimeout = b.replicaAckTimeout;
        this.addresses = List.copyOf(b.addresses);
        this.cluster = b.cluster;
        this.tls = b.tls;
        this.username = b.username;
        this.password = b.password;
        this.clientName = b.clientName;
        this.requestTimeout = b.requestTimeout;
        this.connectionTimeout = b.connectionTimeout;
        this.namespace = b.namespace;
        this.maxInFlightBatches = b.maxInFlightBatches;
        this.maxBatchSize = b.maxBatchSize;
        this.failoverProbeInterval = b.failoverProbeInterval;
        this.releaseChannelLinger = b.releaseChannelLinger;
        this.clients = b.clients;
    }

    /** A standalone server (optionally with replicas, listed after it). */
    public static Builder standalone(String... addresses) {
        return new Builder(false, addresses);
    }

    /** A cluster, reached through any of these seed nodes. */
    public static Builder cluster(String... addresses) {
        return new Builder(true, addresses);
    }

    public List<String> addresses() {
        return addresses;
    }

    public boolean isCluster() {
        return cluster;
    }

    public boolean tls() {
        return tls;
    }

    public @Nullable String username() {
        return username;
    }

    public @Nullable String password() {
        return password;
    }

    public String clientName() {
        return clientName;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    public Duration connectionTimeout() {
        return connectionTimeout;
    }

    /** The prefix inside every key's hash tag; see the knob table for what two ledgers sharing it share. */
    public String namespace() {
        return namespace;
    }

    public int maxInFlightBatches() {
        return maxInFlightBatches;
    }

    public int maxBatchSize() {
        return maxBatchSize;
    }

    public Duration failoverProbeInterval() {
        return failoverProbeInterval;
    }

    public int replicaAcks() {
        return replicaAcks;
    }

    public Duration replicaAckTimeout() {
        return replicaAckTimeout;
    }

    public ScriptMode scriptMode() {
        return scriptMode;
    }

    public Duration releaseChannelLinger() {
        return releaseChannelLinger;
    }

    public int clients() {
        return clients;
    }

    @Override
    public String toString() {
        return "ValkeyConfig[" + (cluster ? "cluster " : "standalone ") + addresses + ", namespace=" + namespace
                + ", requestTimeout=" + requestTimeout + (username != null ? ", user=" + username : "")
                + (scriptMode != ScriptMode.EVALSHA_LOAD_ON_MISS ? ", scriptMode=" + scriptMode : "")
                + (clients != 1 ? ", clients=" + clients : "") + "]";
    }

    /** Builder; {@link #build()} validates every knob and names the first mistake. */
    public static final class Builder {
        private final List<String> addresses = new ArrayList<>();
        private final boolean cluster;
        private boolean tls;
        private @Nullable String username;
        private @Nullable String password;
        private String clientName = "tenure";
        private Duration requestTimeout = Duration.ofMillis(500);
        private Duration connectionTimeout = Duration.ofSeconds(1);
        private String namespace = "tenure";
        private int maxInFlightBatches = 2;
        private int maxBatchSize = 128;
        private Duration failoverProbeInterval = Duration.ofMillis(500);
        private int replicaAcks;
        private Duration replicaAckTimeout = Duration.ofMillis(100);
        private ScriptMode scriptMode = ScriptMode.EVALSHA_LOAD_ON_MISS;
        private Duration releaseChannelLinger = Duration.ofSeconds(30);
        private int clients = 1;

        private Builder(boolean cluster, String... addresses) {
            this.cluster = cluster;
            for (String a : addresses) {
                address(a);
            }
        }

        public Builder address(String hostPort) {
            HostPort.parse(hostPort);
            addresses.add(hostPort);
            return this;
        }

        public Builder tls(boolean on) {
            this.tls = on;
            return this;
        }

        /** ACL user and password; a null user means the default user (password only). */
        public Builder credentials(String user, String pass) {
            this.username = user;
            this.password = Objects.requireNonNull(pass, "password");
            return this;
        }

        public Builder clientName(String name) {
            this.clientName = Objects.requireNonNull(name, "clientName");
            return this;
        }

        public Builder requestTimeout(Duration d) {
            this.requestTimeout = positive(d, "requestTimeout");
            return this;
        }

        public Builder connectionTimeout(Duration d) {
            this.connectionTimeout = positive(d, "connectionTimeout");
            return this;
        }

        public Builder failoverProbeInterval(Duration d) {
            this.failoverProbeInterval = positive(d, "failoverProbeInterval");
            return this;
        }

        public Builder namespace(String ns) {
            if (ns == null || ns.isEmpty() || ns.length() > 64) {
                throw new IllegalArgumentException(
                        "namespace must be 1..64 characters (got " + (ns == null ? "null" : "\"" + ns + "\"") + ")");
            }
            this.namespace = dev.tenure.spi.LeaseKeys.validate(ns);
            return this;
        }

        public Builder maxInFlightBatches(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxInFlightBatches must be >= 1 (got " + n + ")");
            }
            this.maxInFlightBatches = n;
            return this;
        }

        /**
         * After granting a lease, WAIT until {@code replicas} replicas have it, at most {@code timeout}; fewer
         * acknowledgements fail the acquire (fail closed). Narrows the failover window of asynchronous
         * replication; does not close it. Default 0 = no WAIT. Acquires and hand-offs then run on a second
         * connection, one call (with its WAIT) at a time, so renewals and releases never wait for a WAIT; an acquire
         * may wait for the WAIT of the call before it, so keep {@code timeout} well below {@code Leases}' call timeout.
         */
        public Builder replicaAcks(int replicas, Duration timeout) {
            if (replicas < 0 || replicas > 16) {
                throw new IllegalArgumentException("replicaAcks must be between 0 and 16 (got " + replicas + ")");
            }
            this.replicaAcks = replicas;
            this.replicaAckTimeout = positive(timeout, "replicaAckTimeout");
            return this;
        }

        /**
         * How the lease script runs (default {@link ScriptMode#EVALSHA_LOAD_ON_MISS}). With
         * {@link ScriptMode#PRELOADED_FUNCTION} an administrator installs the function first
         * ({@code ValkeyFunctions.install(ValkeyConfig)}, module tenure-valkey), and the ACL user needs {@code +fcall} instead of
         * {@code +evalsha +script|load}.
         */
        public Builder scriptMode(ScriptMode mode) {
            this.scriptMode = Objects.requireNonNull(mode, "scriptMode");
            return this;
        }

        /**
         * How long the subscription to a key's release channel outlives its last waiter (default 30 s; zero
         * unsubscribes at once). A key waited for again within it needs no new subscription.
         */
        public Builder releaseChannelLinger(Duration d) {
            if (d == null || d.isNegative() || d.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("releaseChannelLinger must be zero or positive (got " + d + ")");
            }
            this.releaseChannelLinger = d;
            return this;
        }

        /**
         * How many GLIDE clients, each with its own connection, carry the script calls (default 1, at most 16). A
         * key's operations always go through the same client, and each client has its own {@link #maxInFlightBatches}
         * calls in flight, so more clients mean more, smaller calls in flight for many distinct keys. The release
         * notifications and the grants of {@link #replicaAcks} keep a connection of their own either way.
         */
        public Builder clients(int n) {
            if (n < 1 || n > 16) {
                throw new IllegalArgumentException("clients must be between 1 and 16 (got " + n + ")");
            }
            this.clients = n;
            return this;
        }

        public Builder maxBatchSize(int n) {
            if (n < 1 || n > 1000) {
                throw new IllegalArgumentException("maxBatchSize must be between 1 and 1000 (got " + n + ")");
            }
            this.maxBatchSize = n;
            return this;
        }

        public ValkeyConfig build() {
            if (addresses.isEmpty()) {
                throw new IllegalArgumentException("at least one Valkey address (host:port) is required");
            }
            return new ValkeyConfig(this);
        }

        private static Duration positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive (got " + d + ")");
            }
            if (d.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(name + " is too large (got " + d + ")");
            }
            return d;
        }
    }

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
         * {@code ValkeyFunctions.install(ValkeyConfig)} or {@code FUNCTION LOAD REPLACE} of
         * {@code ValkeyFunctions.library()} (module tenure-valkey), on every primary of a cluster. Needs only {@code +fcall}: the user
         * cannot run Lua of its own. Functions are kept in RDB and AOF files and replicated to replicas, so a restart with
         * persistence or a failover keeps them. The function's name carries a hash of the script, so a Tenure version
         * with a changed script needs a new install (old and new can be installed side by side during a rolling upgrade).
         * Without the function every call fails with {@link dev.tenure.LeaseStoreUnavailableException} naming the
         * function and how to install it; Tenure never installs it itself.
         */
        PRELOADED_FUNCTION
    }
}
