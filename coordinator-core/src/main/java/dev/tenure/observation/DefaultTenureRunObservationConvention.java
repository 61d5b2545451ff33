package dev.tenure.observation;

import dev.tenure.observation.TenureRunObservationDocumentation.HighCardinalityKeys;
import dev.tenure.observation.TenureRunObservationDocumentation.LowCardinalityKeys;
import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

/**
 * Tenure's names and key values: the phase's name ({@code tenure.run}, {@code tenure.run.claim}, ...), the job,
 * outcome, mode, fallback and integration as low-cardinality keys, the fire, node, and once claimed the epoch and owner
 * as high-cardinality ones. Thread-safe.
 */
public class DefaultTenureRunObservationConvention implements TenureRunObservationConvention {

    /** The one instance Tenure uses. */
    public static final DefaultTenureRunObservationConvention INSTANCE = new DefaultTenureRunObservationConvention();

    /**
     * None: each phase keeps the name {@link TenureRunObservationDocumentation} gives it ({@code tenure.run},
     * {@code tenure.run.claim}, ...), which is also its span's name.
     */
    @Override
    public @Nullable String getName() {
        return null;
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(TenureRunObservationContext context) {
        return KeyValues.of(
                LowCardinalityKeys.JOB.withValue(context.jobKey()),
                LowCardinalityKeys.OUTCOME.withValue(context.outcome()),
                LowCardinalityKeys.MODE.withValue(context.mode()),
                LowCardinalityKeys.FALLBACK.withValue(Boolean.toString(context.fallback())),
                LowCardinalityKeys.INTEGRATION.withValue(context.integration()));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(TenureRunObservationContext context) {
        KeyValues kv = KeyValues.of(HighCardinalityKeys.FIRE.withValue(context.fireKey()));
        if (context.node() != null) {
            kv = kv.and(HighCardinalityKeys.NODE.withValue(context.node()));
        }
        if (context.owner() != null) {
            kv = kv.and(
                    HighCardinalityKeys.EPOCH.withValue(Long.toString(context.epoch())),
                    HighCardinalityKeys.OWNER.withValue(context.owner()));
        }
        return kv;
    }
}
