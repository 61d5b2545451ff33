package dev.tenure.boot.autoconfigure;

import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

import static dev.tenure.boot.TenureConfigurationException.property;

/**
 * tenure.fallback.*: the breaker of the valkey-with-database-fallback mode.
 *
 * @param failures Valkey failures in a row that open the breaker (runs then go to the database alone)
 * @param openFor  how long the breaker stays open before Valkey is tried again
 */
public record FallbackProperties(@DefaultValue("2") int failures, @DefaultValue("5s") Duration openFor) {

    public FallbackProperties {
        if (failures < 1) {
            throw property("tenure.fallback.failures", failures, "1 or more");
        }
        if (openFor == null || openFor.isNegative() || openFor.isZero()) {
            throw property("tenure.fallback.open-for", openFor, "a positive duration");
        }
    }
}
