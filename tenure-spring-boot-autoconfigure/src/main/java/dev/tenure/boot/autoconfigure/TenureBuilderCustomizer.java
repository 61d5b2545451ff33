package dev.tenure.boot.autoconfigure;

import dev.tenure.Tenure;

/**
 * Adjusts the {@link Tenure.Builder} of the auto-configured {@link Tenure} after the {@code tenure.*} properties were
 * applied (a ticker, say). Beans of this type are applied in order.
 */
@FunctionalInterface
public interface TenureBuilderCustomizer {

    void customize(Tenure.Builder builder);
}
