package dev.tenure.observation;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The facts of one coordinated run for its observations: the run itself ({@code tenure.run}) and each of its phases
 * (claim, work, complete) get a context of their own, with the {@link #phase()} they observe. The job, fire, mode,
 * integration and node are known when the run starts; the epoch, owner and fallback once it is claimed; the outcome when
 * the phase ends.
 *
 * <p>Tenure sets the facts ({@link #claimed}, {@link #fallback(boolean)}, {@link #outcome(String)}) as the run goes; a
 * convention or handler only reads them. Written by the thread that runs the phase, read by observation handlers on the
 * thread that starts or stops it. Thread-safe.
 */
public class TenureRunObservationContext extends Observation.Context {

    /** The outcome of a phase that has not ended yet. */
    public static final String UNKNOWN = "UNKNOWN";

    private final TenureRunObservationDocumentation phase;
    private final String jobKey;
    private final String fireKey;
    private final String mode;
    private final String integration;
    private final @Nullable String node;
    private volatile long epoch;
    private volatile @Nullable String owner;
    private volatile boolean fallback;
    private volatile String outcome = UNKNOWN;

    /**
     * @param phase       which observation this context belongs to
     * @param jobKey      the job key
     * @param fireKey     the fire key
     * @param mode        the coordinator's mode, as {@code JobCoordinator.Mode} names it
     * @param integration who runs it: {@code coordinator}, {@code scheduled}, {@code quartz}, {@code batch}
     * @param node        this node's name; null when it has none
     */
    public TenureRunObservationContext(
            TenureRunObservationDocumentation phase,
            String jobKey,
            String fireKey,
            String mode,
            String integration,
            @Nullable String node) {
        this.phase = phase;
        this.jobKey = jobKey;
        this.fireKey = fireKey;
        this.mode = mode;
        this.integration = integration;
        this.node = node;
    }

    public TenureRunObservationDocumentation phase() {
        return phase;
    }

    public String jobKey() {
        return jobKey;
    }

    public String fireKey() {
        return fireKey;
    }

    public String mode() {
        return mode;
    }

    public String integration() {
        return integration;
    }

    /** This node's name; null when it has none. */
    public @Nullable String node() {
        return node;
    }

    /** The run's epoch once it is claimed; 0 before, and for a run that was not claimed. */
    public long epoch() {
        return epoch;
    }

    /** The owner id of the run's database lease once it is claimed; null before, and for a run not claimed. */
    public @Nullable String owner() {
        return owner;
    }

    /** True if the run went to the database alone because Valkey was unreachable. */
    public boolean fallback() {
        return fallback;
    }

    /**
     * How the phase ended: for the run and its completion the {@code RunOutcome.Status} name; for the claim
     * {@code CLAIMED} or the status of a run not claimed; for the work {@code SUCCEEDED} or {@code FAILED}; {@code FAULT}
     * when Tenure could not reach its stores; {@link #UNKNOWN} until it ends.
     */
    public String outcome() {
        return outcome;
    }

    /** Sets what the claim found: this run's epoch and owner, and whether it bypassed Valkey. */
    public void claimed(long epoch, @Nullable String owner, boolean fallback) {
        this.epoch = epoch;
        this.owner = owner;
        this.fallback = fallback;
    }

    /** Sets whether the run bypassed Valkey (a run that was not claimed). */
    public void fallback(boolean fallback) {
        this.fallback = fallback;
    }

    public void outcome(String outcome) {
        this.outcome = outcome;
    }
}
