package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;
import dev.tenure.spi.LeaseStore;
import dev.tenure.testkit.LeaseStoreContract;
import dev.tenure.testkit.ValkeyCluster;
import dev.tenure.testkit.ValkeyServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The LeaseStore contract on a 3-primary / 3-replica valkey cluster, through a store with four GLIDE clients. */
class ValkeyClusterFourClientsContractIT extends LeaseStoreContract {

    private static ValkeyCluster cluster;
    private static ValkeyLeaseStore store;

    @BeforeAll
    static void start() {
        cluster = ValkeyServers.cluster();
        store = ValkeyLeaseStore.create(
                ValkeyConfig.cluster(cluster.seedAddresses().toArray(String[]::new))
                        .clients(4)
                        .build());
        ValkeyClusterContractIT.warmUp(store);
    }

    @AfterAll
    static void stop() {
        store.close();
        cluster.close();
    }

    @Override
    protected LeaseStore store() {
        return store;
    }
}
