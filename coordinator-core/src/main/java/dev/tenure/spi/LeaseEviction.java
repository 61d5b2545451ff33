package dev.tenure.spi;

/**
 * Deletes a job's Valkey lease whoever holds it: the second step of an operator's force-release, after the database
 * statement has ended the job's database lease. Without it the holder's Valkey lease would keep every other node out
 * until the holder's stuck work returned. {@code dev.tenure.Tenure#valkeyEviction()} gives one over Tenure's own Valkey
 * client; the ops console has one over its own connection. Implementations are thread-safe.
 */
@FunctionalInterface
public interface LeaseEviction {

    /**
     * Deletes {@code jobKey}'s Valkey lease and wakes the processes waiting for it.
     *
     * @return true if there was a lease to delete
     * @throws dev.tenure.LeaseStoreUnavailableException if Valkey failed or did not answer within its timeouts
     */
    boolean evict(String jobKey);
}
