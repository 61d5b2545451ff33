package dev.tenure.it;

import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.spi.LeaseStore;
import dev.tenure.testkit.LeaseStoreContract;

/**
 * The LeaseStore contract (with its lease-handle part) on the shipped {@link InMemoryLeaseStore}, on the system's
 * ticker. A unit test: no server involved.
 */
class InMemoryLeaseStoreContractTest extends LeaseStoreContract {

    private static final InMemoryLeaseStore STORE = new InMemoryLeaseStore();

    @Override
    protected LeaseStore store() {
        return STORE;
    }
}
