package dev.tenure.boot.autoconfigure;

import static dev.tenure.boot.TenureConfigurationException.property;
import static dev.tenure.boot.autoconfigure.PropertyChecks.check;

import dev.tenure.ValkeyConfig;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * tenure.valkey.*: the Valkey in front of the database. Each value goes through ValkeyConfig's own
 * checks when bound, so a bad one names its property. Needs module tenure-valkey (in the starter) and
 * io.valkey:valkey-glide with your platform's classifier.
 *
 * @param addresses         host:port of the server(s) (standalone: the primary and its replicas; cluster: seed
 *                          nodes); empty = no Valkey, the database mode
 * @param topology          standalone or cluster
 * @param tls               TLS to Valkey
 * @param username          the ACL user (needs password); empty = the default user
 * @param password          the password (of username, or of the default user)
 * @param requestTimeout    bound of one call; a timed-out call may still have executed
 * @param connectionTimeout bound of connecting and the handshake
 * @param namespace         prefix inside every key's hash tag (1 to 64 characters, no braces or whitespace)
 * @param clientName        the connection's CLIENT SETNAME
 * @param scriptMode        evalsha-load-on-miss, or preloaded-function for a least-privilege ACL user
 * @param clients           GLIDE clients for the lease script calls, 1 to 16, each with its own connection; a key's
 *                          operations always use the same one. More can help many threads on distinct keys
 * @param required          fail start-up when Valkey refuses Tenure (a wrong password) or cannot be reached; false
 *                          (the default) starts anyway, says so in a WARN repeated at most once a minute, and runs go
 *                          to the database alone in the default mode
 */
public record ValkeyProperties(
        @DefaultValue List<String> addresses,
        @DefaultValue("standalone") Topology topology,
        @DefaultValue("false") boolean tls,
        String username,
        String password,
        @DefaultValue("500ms") Duration requestTimeout,
        @DefaultValue("1s") Duration connectionTimeout,
        @DefaultValue("tenure") String namespace,
        @DefaultValue("tenure") String clientName,
        @DefaultValue("evalsha-load-on-miss") ValkeyConfig.ScriptMode scriptMode,
        @DefaultValue("1") int clients,
        @DefaultValue("false") boolean required) {

    /** Standalone (a primary, maybe with replicas) or cluster. */
    public enum Topology {
        STANDALONE,
        CLUSTER
    }

    public ValkeyProperties {
        addresses = List.copyOf(addresses);
        build(
                addresses,
                topology,
                tls,
                username,
                password,
                requestTimeout,
                connectionTimeout,
                namespace,
                clientName,
                scriptMode,
                clients);
    }

    /** The Valkey configuration, or empty when no address is set (the database mode). */
    public Optional<ValkeyConfig> toConfig() {
        return build(
                addresses,
                topology,
                tls,
                username,
                password,
                requestTimeout,
                connectionTimeout,
                namespace,
                clientName,
                scriptMode,
                clients);
    }

    @SuppressWarnings("java:S107") // one argument per property, as bound
    /** Checks every value (each naming its property); the configuration when there are addresses. */
    private static Optional<ValkeyConfig> build(
            List<String> addresses,
            Topology topology,
            boolean tls,
            String username,
            String password,
            Duration requestTimeout,
            Duration connectionTimeout,
            String namespace,
            String clientName,
            ValkeyConfig.ScriptMode scriptMode,
            int clients) {
        ValkeyConfig.Builder b = topology == Topology.CLUSTER ? ValkeyConfig.cluster() : ValkeyConfig.standalone();
        for (int i = 0; i < addresses.size(); i++) {
            String a = addresses.get(i);
            check("tenure.valkey.addresses[" + i + "]", a, () -> b.address(a));
        }
        if (username != null && password == null) {
            throw property("tenure.valkey.password", null, "tenure.valkey.username needs a password");
        }
        if (password != null) {
            check("tenure.valkey.password", "******", () -> b.credentials(username, password));
        }
        check("tenure.valkey.request-timeout", requestTimeout, () -> b.requestTimeout(requestTimeout));
        check("tenure.valkey.connection-timeout", connectionTimeout, () -> b.connectionTimeout(connectionTimeout));
        check("tenure.valkey.namespace", namespace, () -> b.namespace(namespace));
        check("tenure.valkey.client-name", clientName, () -> b.clientName(clientName));
        check("tenure.valkey.clients", clients, () -> b.clients(clients));
        return addresses.isEmpty()
                ? Optional.empty()
                : Optional.of(b.tls(tls).scriptMode(scriptMode).build());
    }

    @Override
    public String toString() {
        return "ValkeyProperties[addresses=" + addresses + ", topology=" + topology + ", tls=" + tls + ", username="
                + username + ", password=" + (password == null ? null : "******") + ", namespace=" + namespace + "]";
    }
}
