package dev.tenure.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names a coordinated run's observations and makes their key values. Implement it (or extend
 * {@link DefaultTenureRunObservationConvention}) to change them, and give it to {@code Tenure.Builder.observationConvention}
 * (in Spring Boot: a bean of this type), or register it as a {@code GlobalObservationConvention}.
 */
public interface TenureRunObservationConvention extends ObservationConvention<TenureRunObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof TenureRunObservationContext;
    }
}
