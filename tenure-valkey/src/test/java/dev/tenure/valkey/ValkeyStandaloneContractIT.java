package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;
import dev.tenure.spi.LeaseStore;
import dev.tenure.testkit.LeaseStoreContract;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The LeaseStore contract on a standalone valkey-server. */
class ValkeyStandaloneContractIT extends LeaseStoreContract {

    private static ValkeyServer server;
    private static ValkeyLeaseStore store;

    @BeforeAll
    static void start() {
        server = ValkeyServers.standalone();
        store = ValkeyLeaseStore.create(
                ValkeyConfig.standalone(server.address()).build());
    }

    @AfterAll
    static void stop() {
        store.close();
        server.close();
    }

    @Override
    protected LeaseStore store() {
        return store;
    }
}
