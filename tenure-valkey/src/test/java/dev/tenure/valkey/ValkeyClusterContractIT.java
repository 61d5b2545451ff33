package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;
import dev.tenure.spi.LeaseStore;
import dev.tenure.testkit.LeaseStoreContract;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyCluster;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The LeaseStore contract on a 3-primary / 3-replica valkey cluster. */
class ValkeyClusterContractIT extends LeaseStoreContract {

    private static ValkeyCluster cluster;
    private static ValkeyLeaseStore store;

    @BeforeAll
    static void start() {
        cluster = ValkeyServers.cluster();
        store = ValkeyLeaseStore.create(
                ValkeyConfig.cluster(cluster.seedAddresses().toArray(String[]::new))
                        .build());
        warmUp(store);
    }

    /**
     * Until a call has gone through on every shard (connections, topology, script loading): on a loaded 2-core machine
     * the first call to a fresh cluster can outlast the 500 ms request timeout. Keys of its own, short TTL.
     */
    static void warmUp(LeaseStore store) {
        for (int i = 0; i < 30; i++) {
            String key = "warm-up-" + i;
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(30)))
                    .ignoreExceptions()
                    .until(() -> {
                        store.tryAcquire(key, "warm-up", Duration.ofMillis(500), false)
                                .get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
                        return true;
                    });
        }
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
