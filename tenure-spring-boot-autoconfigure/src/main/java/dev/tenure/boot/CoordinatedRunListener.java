package dev.tenure.boot;

import dev.tenure.JobContext;
import dev.tenure.RunOutcome;
import dev.tenure.TenureException;

/**
 * Told about each fire of a {@link Coordinated} method; declare beans of this type (logging, metrics, alerts). Called
 * on the fire's thread, in bean order; an exception it throws is logged and never reaches the run.
 */
public interface CoordinatedRunListener {

    /** This instance holds the job's leases for the fire and is about to call the method. */
    default void claimed(JobContext run) {}

    /** The fire ended here, run or not: the outcome is recorded and the leases are released. */
    default void finished(RunOutcome<?> outcome) {}

    /**
     * Tenure's stores failed: the fire was skipped here (fail closed), or it ran here and its outcome could not be
     * recorded afterwards (then {@link #claimed} was called for it).
     */
    default void faulted(String jobKey, String fireKey, TenureException fault) {}
}
