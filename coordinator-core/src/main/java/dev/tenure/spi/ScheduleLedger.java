package dev.tenure.spi;

import dev.tenure.MissedFirePolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The schedules of the jobs and the sweeper's records. The ledger, not a process's memory, is the truth about schedules:
 * each schedule's versions (a change is a new version from the instant the database recorded it), its state (active,
 * paused, retired) with the spans in which it had no due fires, the application that registers it, how far its fires
 * are accounted for, and which fires were MISSED. Every instant that decides what is due comes from the ledger's clock
 * ({@link Due#now()}), never a node's. The database module implements it on {@code job_schedule} and its neighbours.
 * Implementations are thread-safe and raise {@link dev.tenure.LeaseStoreUnavailableException} on faults, within
 * bounded time.
 */
public interface ScheduleLedger {

    /** A schedule state: {@code ACTIVE}, {@code PAUSED} (no due fires while paused) or {@code RETIRED}. */
    String ACTIVE = "ACTIVE";

    String PAUSED = "PAUSED";
    String RETIRED = "RETIRED";

    /**
     * A job's schedule as a process registers it. {@code policyText} and {@code node} are text for operators;
     * {@code policy} is what a sweeper that does not have the job's code applies. {@code firstFire}: the first fire
     * that the registering process's scheduler fires; a schedule new to the ledger is accounted for from it, not from
     * the registration (null: from the registration).
     */
    record ScheduleRow(
            String jobKey,
            String application,
            String kind,
            String expression,
            MissedFirePolicy policy,
            String policyText,
            String integration,
            @Nullable String node,
            @Nullable Instant firstFire) {

        /** A row accounted for from its registration. */
        public ScheduleRow(
                String jobKey,
                String application,
                String kind,
                String expression,
                MissedFirePolicy policy,
                String policyText,
                String integration,
                @Nullable String node) {
            this(jobKey, application, kind, expression, policy, policyText, integration, node, null);
        }
    }

    /**
     * What {@link #register} found: {@code created} for a job that had no schedule yet; otherwise the stored schedule
     * ({@code replaced}, registered at {@code previousAt}) if it differed from the one registered now, which becomes
     * version {@code version}. {@code reactivated}: the schedule was RETIRED and is active again.
     */
    record Registered(
            boolean created,
            int version,
            Optional<ScheduleRow> replaced,
            @Nullable Instant previousAt,
            boolean reactivated) {}

    /** An earlier version of a schedule, accounted for from {@code from} (null: the start) until {@code until}. */
    record Version(
            int version,
            String kind,
            String expression,
            @Nullable Instant from,
            Instant until) {}

    /** A span without due fires: {@code state} PAUSED or RETIRED from {@code from} until {@code until} (null: now). */
    record Span(String state, Instant from, @Nullable Instant until, String reason) {

        /** True if a fire due at {@code t} falls inside this span. */
        public boolean covers(Instant t) {
            return !t.isBefore(from) && (until == null || t.isBefore(until));
        }
    }

    /**
     * A schedule as the sweeper reads it: its current version ({@code kind}, {@code expression}, accounted for from
     * {@code versionFrom}, null: the start), the earlier versions and spans that still matter after {@code sweptUntil}
     * (every fire due at or before it is accounted for), its policy, and when a live process last marked its
     * registration ({@code seenAt}, null: unknown), and when a sweep last looked at it ({@code sweptAt}, null: never). A
     * RETIRED schedule is read until its account reaches its retirement.
     */
    record Tracked(
            String jobKey,
            String application,
            String state,
            int version,
            String kind,
            String expression,
            @Nullable Instant versionFrom,
            MissedFirePolicy policy,
            Instant sweptUntil,
            List<Version> earlier,
            List<Span> spans,
            @Nullable Instant seenAt,
            @Nullable Instant sweptAt) {}

    /**
     * One sweep's view: the ledger's clock at the read, and the schedules of the application that need looking at
     * (those whose check time has come, oldest first); {@code more}: the limit cut the list.
     */
    record Due(Instant now, List<Tracked> schedules, boolean more) {}

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

    /** The state of a run found by {@link #runsSince}, by its fire key. */
    record RunState(
            String fireKey, FireState state, @Nullable String error) {}

    /** A fire to record MISSED, with why. */
    record Missed(DueFire fire, String reason) {}

    /**
     * One record for {@code fires} fires of {@code jobKey} that nobody ran, due from {@code first} to {@code last}, with
     * why: written instead of a row per fire after a long outage.
     */
    record Summary(String jobKey, Instant first, Instant last, long fires, String reason) {

        /** The record's fire key: {@code <first>..<last>}. */
        public String fireKey() {
            return first + ".." + last;
        }
    }

    /**
     * Where a job's sweep stands after a sweep of its schedule as it was read ({@code version}, {@code state}): every
     * fire due at or before {@code sweptUntil} is accounted for; the sweeper looks again at {@code checkAt} (null: not
     * before something changes; a schedule whose version or state changed since it was read is looked at again at
     * once); the next fire is due at {@code nextDue}; {@code overdue} fires are open; {@code missed} fires were recorded
     * MISSED now (summaries counted by their fires); {@code error}: why this job's sweep failed (null: it did not).
     */
    record SweepMark(
            String jobKey,
            int version,
            String state,
            Instant sweptUntil,
            @Nullable Instant checkAt,
            @Nullable Instant nextDue,
            int overdue,
            long missed,
            @Nullable String error) {}

    /** What {@link #settle} did: the fires recorded MISSED, and the jobs left for the next sweep (their rows were busy). */
    record Settled(Set<DueFire> recorded, Set<String> busyJobs) {}

    /** A schedule that needs a sweep and has not had one for a while: due since {@code dueSince}. */
    record Unswept(
            String jobKey, String application, @Nullable Instant sweptAt, Instant dueSince) {}

    /**
     * Records {@code row} as its job's schedule and makes sure the job has a row in the job table. The same schedule
     * refreshes the registration; a different one becomes a new version from the ledger's clock now (the old one is
     * accounted for up to that instant). A RETIRED schedule turns ACTIVE again; a PAUSED one stays paused.
     */
    Registered register(ScheduleRow row);

    /**
     * {@link #register} for many rows, answered in their order; a store may write them in a few statements (the
     * default registers one row at a time).
     */
    default List<Registered> registerAll(List<ScheduleRow> rows) {
        List<Registered> out = new java.util.ArrayList<>(rows.size());
        for (ScheduleRow r : rows) {
            out.add(register(r));
        }
        return out;
    }

    /** Marks the schedules of {@code jobKeys} as registered by a live process now (those not marked for {@code every}). */
    void seen(Collection<String> jobKeys, Duration every);

    /**
     * The schedules of {@code application} that need a sweep now, at most {@code limit}, with the ledger's clock: ACTIVE
     * and PAUSED ones whose check time has come, and RETIRED ones whose account has not reached their retirement.
     */
    Due due(String application, int limit);

    /** The state of each fire, in the order given. */
    List<FireStatus> states(List<DueFire> fires);

    /**
     * The runs of each job started at or after the instant given for it (by the ledger's clock), by fire key: how the
     * sweeper reads the states of a long run of fires without naming each one.
     */
    Map<String, List<RunState>> runsSince(Map<String, Instant> since);

    /**
     * In one transaction: records each fire of {@code missed} MISSED unless a run of it started or completed meanwhile
     * (a live RUNNING, COMPLETED or FAILED run stays as it is); a RUNNING run whose holder's lease ended is fenced off
     * first (the job's epoch moves on, so the holder's later fenced writes and its finish are refused); writes
     * {@code summaries}; and stores the marks that {@code marks} makes from what was recorded. A job whose row is
     * busy (a claim at that moment) and a fire whose run row is locked (an open transaction completing it) are left for
     * the next sweep: they never make the sweep wait.
     */
    Settled settle(
            List<Missed> missed, List<Summary> summaries, Function<Settled, List<SweepMark>> marks, String sweeper);

    /** Stores marks alone (jobs with nothing to record). */
    void swept(List<SweepMark> marks, String sweeper);

    /**
     * Pauses an ACTIVE schedule from {@code from}: fires due from then on are not due until it is resumed; the ledger
     * keeps the span with its reason.
     */
    void pause(String jobKey, Instant from, String reason, String by);

    /** Resumes a PAUSED schedule at {@code at} (an instant of the ledger's clock): its span ends, its fires are due again. */
    void resume(String jobKey, Instant at, String by);

    /**
     * Retires the ACTIVE or PAUSED schedules that no live process has registered for {@code unseenFor}: they leave the
     * sweeps and the health checks until a process registers them again.
     *
     * @return the job keys retired now
     */
    List<String> retireUnseen(Duration unseenFor, String by);

    /** Schedules of any application whose check time passed more than {@code behind} ago, at most {@code limit}. */
    List<Unswept> unswept(Duration behind, int limit);

    /** Asks a process that has the job's code to catch these fires up (an idempotent request per fire). */
    void requestCatchUps(List<DueFire> fires, String by);

    /** Takes at most {@code limit} requested catch-ups of {@code jobKeys} (each request goes to one taker). */
    List<DueFire> takeCatchUps(Collection<String> jobKeys, int limit);
}
