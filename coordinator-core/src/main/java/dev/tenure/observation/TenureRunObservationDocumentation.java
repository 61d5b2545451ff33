package dev.tenure.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of a coordinated run: {@link #RUN} and, as its children, {@link #CLAIM}, {@link #WORK} and
 * {@link #COMPLETE}. Each carries the same key values ({@link LowCardinalityKeys}, {@link HighCardinalityKeys}), made by
 * a {@link TenureRunObservationConvention} ({@link DefaultTenureRunObservationConvention} unless one is given).
 */
public enum TenureRunObservationDocumentation implements ObservationDocumentation {

    /** One coordinated run, from the start of its claim to its recorded outcome; a child of the host's observation. */
    RUN("tenure.run"),
    /** The claim: the Valkey lease, the database lease and epoch, the start of the fire's run row. */
    CLAIM("tenure.run.claim"),
    /** The job's own work, under the run's epoch. */
    WORK("tenure.run.work"),
    /** The recording of the outcome (or the completion in the work's transaction) and the release of the leases. */
    COMPLETE("tenure.run.complete");

    private final String observationName;

    TenureRunObservationDocumentation(String observationName) {
        this.observationName = observationName;
    }

    @Override
    public String getName() {
        return observationName;
    }

    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
        return DefaultTenureRunObservationConvention.class;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
        return LowCardinalityKeys.values();
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
        return HighCardinalityKeys.values();
    }

    /** Key values with few values each: safe as meter tags. */
    public enum LowCardinalityKeys implements KeyName {
        /** The job key. */
        JOB("tenure.job"),
        /** How the phase ended ({@link TenureRunObservationContext#outcome()}). */
        OUTCOME("tenure.outcome"),
        /** The coordinator's mode: {@code VALKEY}, {@code DATABASE} or {@code VALKEY_WITH_DATABASE_FALLBACK}. */
        MODE("tenure.mode"),
        /** Whether the run bypassed an unreachable Valkey: {@code true} or {@code false}. */
        FALLBACK("tenure.fallback"),
        /** Who runs it: {@code coordinator}, {@code scheduled}, {@code quartz} or {@code batch}. */
        INTEGRATION("tenure.integration");

        private final String key;

        LowCardinalityKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }

    /** Key values with a value per fire or per node: span attributes, never meter tags. */
    public enum HighCardinalityKeys implements KeyName {
        /** The fire key. */
        FIRE("tenure.fire"),
        /** The run's epoch (its fencing token), once claimed. */
        EPOCH("tenure.epoch"),
        /** The owner id of the run's database lease, once claimed. */
        OWNER("tenure.owner"),
        /** This node's name. */
        NODE("tenure.node");

        private final String key;

        HighCardinalityKeys(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }
}
