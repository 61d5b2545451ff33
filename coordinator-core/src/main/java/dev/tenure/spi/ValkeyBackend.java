package dev.tenure.spi;

import dev.tenure.ValkeyConfig;

/**
 * The Valkey lease store. The {@code tenure-valkey} module implements it on Valkey GLIDE; {@link dev.tenure.Tenure}
 * finds it with {@link java.util.ServiceLoader} (listed in {@code META-INF/services/dev.tenure.spi.ValkeyBackend}).
 */
public interface ValkeyBackend {

    /**
     * A lease store on the Valkey {@code config} describes; it connects lazily (creating it works while Valkey is down).
     *
     * @throws IllegalStateException if the client library cannot be loaded (GLIDE missing, or the wrong platform)
     */
    LeaseStore open(ValkeyConfig config);
}
