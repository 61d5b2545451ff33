package dev.tenure.spi;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The schedules of the jobs and the sweeper's records: which job fires when, how far each job's fires have been
 * accounted for, and which fires were MISSED. The database module implements it on {@code job_schedule} and
 * {@code job_run}. Implementations are thread-safe and raise {@link dev.tenure.LeaseStoreUnavailableException} on
 * faults, within bounded time.
 */
public interface ScheduleLedger {

    /** A job's schedule as it is stored: {@code policy} and {@code node} are text for operators. */
    record ScheduleRow(
            String jobKey,
            String kind,
            String expression,
            String policy,
            String integration,
            @Nullable String node) {}

    /**
     * What {@link #register} found: {@code created} for a job that had no schedule yet; otherwise the stored schedule
     * ({@code previousKind}, {@code previousExpression}, registered by {@code previousNode} at {@code previousAt}) if it
     * differed from the one registered now, which replaces it.
     */
    record Registered(
            boolean created,
            Optional<ScheduleRow> replaced,
            @Nullable Instant previousAt) {}

    /** One fire that was due: {@code fireKey} of {@code jobKey}, due at {@code dueAt}. */
    record DueFire(String jobKey, String fireKey, Instant dueAt) {}

    /** What the ledger knows of a due fire now. */
    enum FireState {
        /** No run was ever started for it. */
        NONE,
        /** A run of it is RUNNING under its holder's live lease. */
        RUNNING,
        /** Its run is RUNNING but the holder's lease has ended (killed, frozen, cut off). */
        RUNNING_LEASE_ENDED,
        /** Its holder's run was ABANDONED by a successor's claim, a force-release or a shutdown. */
        ABANDONED,
        /** Its holder came back after losing its lease and was refused. */
        REJECTED_STALE,
        COMPLETED,
        FAILED,
        MISSED;

        /** True for a fire whose account is closed: it completed, failed, or was recorded missed. */
        public boolean settled() {
            return this == COMPLETED || this == FAILED || this == MISSED;
        }
    }

    /** A due fire's state and, for ABANDONED and REJECTED_STALE runs, the run's recorded error. */
    record FireStatus(
            DueFire fire, FireState state, @Nullable String error) {}

    /** A fire to record MISSED, with why. */
    record Missed(DueFire fire, String reason) {}

    /**
     * Where a job's sweep stands after a sweep: every fire due at or before {@code sweptUntil} is settled, the next fire
     * is due at {@code nextDue} (null: none), {@code overdue} fires are open, {@code missed} were recorded MISSED now.
     */
    record SweepMark(
            String jobKey, Instant sweptUntil, @Nullable Instant nextDue, int overdue, int missed) {}

    /**
     * Records {@code row} as its job's schedule (an idempotent upsert), and makes sure the job has a row in the job
     * table. A schedule that differs from the stored one replaces it, and the stored one is returned so that the
     * caller can report the disagreement (two versions of an application in a rolling deploy).
     */
    Registered register(ScheduleRow row);

    /** How far each job's fires are accounted for: every fire due at or before the instant is settled. */
    Map<String, Instant> sweptUntil(Collection<String> jobKeys);

    /** The state of each fire, in the order given. */
    List<FireStatus> states(List<DueFire> fires);

    /**
     * Records each fire MISSED with its reason, owned by {@code sweeper}, unless a run of it started or completed
     * meanwhile (a live RUNNING, COMPLETED or FAILED run stays as it is). Jobs whose row is locked by a claim at that
     * moment are left for the next sweep.
     *
     * @return the fires recorded MISSED now
     */
    List<DueFire> recordMissed(List<Missed> fires, String sweeper);

    /**
     * Stores where each job's sweep stands, the next fire due, how many fires are overdue, and adds the fires recorded
     * MISSED to the job's count (with the time of the last one), by {@code sweeper}.
     */
    void swept(List<SweepMark> marks, String sweeper);
}
