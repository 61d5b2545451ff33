package dev.tenure;

import java.util.List;

/**
 * Leases on several keys taken together (all or nothing), in one global order (sorted keys), released in
 * reverse order. Thread-safe.
 */
public interface LeaseGroup extends AutoCloseable {

    /** The leases, in acquisition (sorted key) order. */
    List<Lease> leases();

    /** True while every lease is valid. */
    default boolean isValid() {
        return leases().stream().allMatch(Lease::isValid);
    }

    /**
     * Releases every lease in reverse order; idempotent. LOST if any lease was lost, else UNCONFIRMED if any
     * release was not confirmed, else ALREADY_RELEASED if all were, else RELEASED.
     */
    default ReleaseResult release() {
        List<Lease> all = leases();
        boolean lost = false;
        boolean unconfirmed = false;
        boolean allAlready = true;
        for (int i = all.size() - 1; i >= 0; i--) {
            ReleaseResult r = all.get(i).release();
            lost |= r == ReleaseResult.LOST;
            unconfirmed |= r == ReleaseResult.UNCONFIRMED;
            allAlready &= r == ReleaseResult.ALREADY_RELEASED;
        }
        if (lost) {
            return ReleaseResult.LOST;
        }
        if (unconfirmed) {
            return ReleaseResult.UNCONFIRMED;
        }
        return allAlready ? ReleaseResult.ALREADY_RELEASED : ReleaseResult.RELEASED;
    }

    @Override
    default void close() {
        release();
    }
}
