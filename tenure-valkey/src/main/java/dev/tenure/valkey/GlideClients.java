package dev.tenure.valkey;

import static glide.api.models.GlideString.gs;

import dev.tenure.ValkeyConfig;
import dev.tenure.internal.HostPort;
import glide.api.BaseClient;
import glide.api.GlideClient;
import glide.api.GlideClusterClient;
import glide.api.models.configuration.AdvancedGlideClientConfiguration;
import glide.api.models.configuration.AdvancedGlideClusterClientConfiguration;
import glide.api.models.configuration.BackoffStrategy;
import glide.api.models.configuration.BaseSubscriptionConfiguration;
import glide.api.models.configuration.ClusterSubscriptionConfiguration;
import glide.api.models.configuration.GlideClientConfiguration;
import glide.api.models.configuration.GlideClusterClientConfiguration;
import glide.api.models.configuration.NodeAddress;
import glide.api.models.configuration.ServerCredentials;
import glide.api.models.configuration.StandaloneSubscriptionConfiguration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** Builds GLIDE clients from a {@link ValkeyConfig}: one place for timeouts, credentials, TLS and back-off. */
final class GlideClients {

    /**
     * A channel subscribed at creation so the client gets a message callback; nothing is published to it. Inside
     * the namespace's channel space ({@code {<ns>:...}}) so a namespace-scoped ACL allows it.
     */
    static String idleChannel(ValkeyConfig cfg) {
        return "{" + cfg.namespace() + ":}idle";
    }

    private GlideClients() {}

    /** Reconnect back-off: 10, 20, 40, 80, 160 ms, then 160 ms forever (GLIDE's default caps at 3.2 s). */
    static BackoffStrategy shortBackoff() {
        return BackoffStrategy.builder()
                .numOfRetries(4)
                .factor(10)
                .exponentBase(2)
                .jitterPercent(10)
                .build();
    }

    static CompletableFuture<? extends BaseClient> create(
            ValkeyConfig cfg,
            List<String> addresses,
            boolean lazy,
            boolean readOnly,
            BaseSubscriptionConfiguration.@Nullable MessageCallback callback) {
        GlideExitHook.remove();
        try {
            return cfg.isCluster()
                    ? cluster(cfg, addresses, lazy, callback)
                    : standalone(cfg, addresses, lazy, readOnly, callback);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static CompletableFuture<GlideClient> standalone(
            ValkeyConfig cfg,
            List<String> addresses,
            boolean lazy,
            boolean readOnly,
            BaseSubscriptionConfiguration.@Nullable MessageCallback callback) {
        var b = GlideClientConfiguration.builder()
                .requestTimeout((int) cfg.requestTimeout().toMillis())
                .clientName(cfg.clientName())
                .useTLS(cfg.tls())
                .lazyConnect(lazy)
                .reconnectStrategy(shortBackoff())
                .advancedConfiguration(AdvancedGlideClientConfiguration.builder()
                        .connectionTimeout((int) cfg.connectionTimeout().toMillis())
                        .build());
        addresses.forEach(a -> b.address(node(a)));
        if (cfg.password() != null) {
            b.credentials(credentials(cfg));
        }
        if (readOnly) {
            b.readOnly(true);
        }
        if (callback != null) {
            b.subscriptionConfiguration(StandaloneSubscriptionConfiguration.builder()
                    .subscription(StandaloneSubscriptionConfiguration.PubSubChannelMode.EXACT, gs(idleChannel(cfg)))
                    .callback(callback)
                    .build());
        }
        return GlideClient.createClient(b.build());
    }

    private static CompletableFuture<GlideClusterClient> cluster(
            ValkeyConfig cfg,
            List<String> addresses,
            boolean lazy,
            BaseSubscriptionConfiguration.@Nullable MessageCallback callback) {
        var b = GlideClusterClientConfiguration.builder()
                .requestTimeout((int) cfg.requestTimeout().toMillis())
                .clientName(cfg.clientName())
                .useTLS(cfg.tls())
                .lazyConnect(lazy)
                .reconnectStrategy(shortBackoff())
                .advancedConfiguration(AdvancedGlideClusterClientConfiguration.builder()
                        .connectionTimeout((int) cfg.connectionTimeout().toMillis())
                        .build());
        addresses.forEach(a -> b.address(node(a)));
        if (cfg.password() != null) {
            b.credentials(credentials(cfg));
        }
        if (callback != null) {
            b.subscriptionConfiguration(ClusterSubscriptionConfiguration.builder()
                    .subscription(ClusterSubscriptionConfiguration.PubSubClusterChannelMode.SHARDED, idleChannel(cfg))
                    .callback(callback)
                    .build());
        }
        return GlideClusterClient.createClient(b.build());
    }

    private static ServerCredentials credentials(ValkeyConfig cfg) {
        var c = ServerCredentials.builder().password(cfg.password());
        if (cfg.username() != null) {
            c.username(cfg.username());
        }
        return c.build();
    }

    private static NodeAddress node(String hostPort) {
        HostPort hp = HostPort.parse(hostPort);
        return NodeAddress.builder().host(hp.host()).port(hp.port()).build();
    }

    static void closeQuietly(@Nullable BaseClient c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            // closing a client that already failed: nothing more to do
        }
    }
}
