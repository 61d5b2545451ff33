package dev.tenure.boot.autoconfigure;

import static dev.tenure.boot.TenureConfigurationException.property;

import dev.tenure.LeaseOptions;
import java.time.Duration;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * tenure.lease.*: how long a crashed or frozen holder blocks the others, and how often leases are renewed.
 *
 * @param ttl          how long a store keeps a lease without renewal (at least 10 ms)
 * @param renewEvery   how often the watchdog renews a lease; default ttl / 3; shorter than the ttl
 * @param safetyMargin subtracted from a holder's local deadline (clock drift); default ttl / 100 + 2 ms
 */
public record LeaseProperties(@DefaultValue("30s") Duration ttl, Duration renewEvery, Duration safetyMargin) {

    public LeaseProperties {
        if (ttl == null || ttl.toMillis() < 10) {
            throw property("tenure.lease.ttl", ttl, "at least 10ms");
        }
        if (renewEvery != null && (renewEvery.isNegative() || renewEvery.isZero() || renewEvery.compareTo(ttl) >= 0)) {
            throw property(
                    "tenure.lease.renew-every", renewEvery, "positive and shorter than tenure.lease.ttl (" + ttl + ")");
        }
        if (safetyMargin != null && (safetyMargin.isNegative() || safetyMargin.compareTo(ttl) >= 0)) {
            throw property(
                    "tenure.lease.safety-margin",
                    safetyMargin,
                    "zero or more and shorter than tenure.lease.ttl (" + ttl + ")");
        }
    }

    /** These values as the lease defaults of the Tenure bean. */
    public LeaseOptions toOptions() {
        return new LeaseOptions(ttl, renewEvery, safetyMargin, true, false, false);
    }
}
