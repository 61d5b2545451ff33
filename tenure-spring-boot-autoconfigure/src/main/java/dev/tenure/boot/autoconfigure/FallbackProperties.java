package dev.tenure.boot.autoconfigure;

import static dev.tenure.boot.TenureConfigurationException.property;

import dev.tenure.Tenure;
import java.time.Duration;

/**
 * tenure.fallback.*: the breaker of the valkey-with-database-fallback mode, for the coordinator and every election.
 *
 * @param failures Valkey failures in a row that open the breaker (runs then go to the database alone); default
 *                 {@link Tenure#DEFAULT_BREAKER_FAILURES}
 * @param openFor  how long the breaker stays open before Valkey is tried again; default
 *                 {@link Tenure#DEFAULT_BREAKER_OPEN_FOR}
 */
public record FallbackProperties(Integer failures, Duration openFor) {

    public FallbackProperties {
        if (failures == null) {
            failures = Tenure.DEFAULT_BREAKER_FAILURES;
        }
        if (openFor == null) {
            openFor = Tenure.DEFAULT_BREAKER_OPEN_FOR;
        }
        if (failures < 1) {
            throw property("tenure.fallback.failures", failures, "1 or more");
        }
        if (openFor.isNegative() || openFor.isZero()) {
            throw property("tenure.fallback.open-for", openFor, "a positive duration");
        }
    }
}
