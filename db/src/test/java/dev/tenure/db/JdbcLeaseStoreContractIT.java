package dev.tenure.db;

import dev.tenure.spi.LeaseStore;
import dev.tenure.testkit.LeaseStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The JDBC lease store passes the contract every {@link LeaseStore} must pass. */
class JdbcLeaseStoreContractIT extends LeaseStoreContract {

    private static Fixture fx;
    private static JdbcLeaseStore store;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(JdbcLeaseStoreContractIT.class);
        store = Fixture.store(fx.pool);
    }

    @AfterAll
    static void stop() {
        store.close();
        fx.close();
    }

    @Override
    protected LeaseStore store() {
        return store;
    }
}
