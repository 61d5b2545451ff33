package dev.tenure.db;

import dev.tenure.DatabaseConfig;
import dev.tenure.spi.LeaseEviction;
import dev.tenure.spi.ScheduleLedger;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

// Over 400 lines: the operators' API in one type (jobs, schedules, history, overdue fires, force-release, retirement)
// with the records it returns nested, as users import them; the reads are ScheduleReads and OverdueReads.
/**
 * What operators need of Tenure's tables: who holds which job, the schedules as the ledger holds them (state, versions,
 * spans, the sweeper's account), and two audited writes: a force-release with a reason, and the retirement of a
 * schedule ({@link #retire}). For the ops console, the Spring Boot actuator endpoint and scripts.
 *
 * <p>{@link #forceRelease} bumps the job's epoch and clears its lease in one statement, marks its RUNNING run
 * ABANDONED and writes an audit row: the old holder's next fence check, renewal, completion or outcome is refused (it
 * compares epoch and owner), so whatever it still does cannot commit. Like a release, it notifies the job's waiters
 * ({@link ReleaseNotifications}), so a node waiting for the job's database lease takes it at once. It waits for the
 * old holder's open fenced transactions (like a claim) up to the claim lock timeout. The reads need only SELECT on the
 * schema; the force-release needs UPDATE on {@code job_execution} and {@code job_run} and INSERT on
 * {@code audit_log}.
 *
 * <p>Thread-safe; holds no resources of its own. Faults are {@link dev.tenure.LeaseStoreUnavailableException}s.
 */
public final class TenureAdmin {

    /**
     * A job as the database sees it now (database clock). {@code owner} is null when nobody holds it; {@code node} is the
     * holder's node name ({@link dev.tenure.integration.NodeName}), null when nobody holds it or the holder recorded none (a claim
     * by a version before node names).
     */
    public record JobState(
            String jobKey,
            long epoch,
            @Nullable String owner,
            String status,
            @Nullable Instant claimedAt,
            @Nullable Instant leaseExpiresAt,
            @Nullable Duration leaseLeft,
            @Nullable String node) {
        /** A state without a node name. */
        public JobState(
                String jobKey,
                long epoch,
                String owner,
                String status,
                Instant claimedAt,
                Instant leaseExpiresAt,
                Duration leaseLeft) {
            this(jobKey, epoch, owner, status, claimedAt, leaseExpiresAt, leaseLeft, null);
        }
    }

    /**
     * A scheduled job as the ledger records it: its schedule and policy, who registered it and when, the schedule it
     * replaced (its previous version), and the sweeper's account: fires are settled up to {@code sweptUntil}, the
     * next is due at {@code nextDueAt}, {@code overdue} are open, {@code missedTotal} were recorded MISSED (the last at
     * {@code lastMissedAt}); {@code lastSuccessAt} is the end of the job's latest COMPLETED run;
     * {@code missedLastHour} counts its fires recorded MISSED in the last hour (database clock), a summary record by
     * its fires ({@link MissedSummary}), up to {@value #MISSED_CAP}.
     *
     * <p>Schedules are data: {@code application} registers it (its sweeper accounts for the fires); {@code state} is
     * ACTIVE, PAUSED or RETIRED, since {@code stateSince}, why ({@code stateReason}) and set by whom ({@code stateBy});
     * {@code version} is the current version, accounted for from {@code versionFrom} (null: from the start; the others
     * are in {@link TenureAdmin#scheduleHistory}); {@code seenAt} is the last time a live process marked its
     * registration; the sweeper looks at it next at {@code checkAt} (null: a RETIRED one, which it does not look at);
     * {@code sweepError} says why its last sweep failed (null: it did not). {@code readAt} is the database clock when
     * the row was read (null for a value made without a read).
     *
     * <p>Nullable: the previous schedule's fields, the sweep's fields before the first sweep, {@code nextDueAt},
     * {@code lastMissedAt}, {@code lastSuccessAt}, the state's fields of a schedule that never changed state,
     * {@code versionFrom}, {@code seenAt}, {@code checkAt}, {@code sweepError}, {@code readAt}.
     */
    public record ScheduleState(
            String jobKey,
            String kind,
            String expression,
            String policy,
            String integration,
            String registeredBy,
            Instant registeredAt,
            @Nullable String previousSchedule,
            @Nullable String previousBy,
            @Nullable Instant changedAt,
            Instant sweptUntil,
            @Nullable Instant sweptAt,
            @Nullable String sweptBy,
            @Nullable Instant nextDueAt,
            int overdue,
            long missedTotal,
            @Nullable Instant lastMissedAt,
            @Nullable Instant lastSuccessAt,
            long missedLastHour,
            String application,
            String state,
            @Nullable Instant stateSince,
            @Nullable String stateReason,
            @Nullable String stateBy,
            int version,
            @Nullable Instant versionFrom,
            @Nullable Instant seenAt,
            @Nullable Instant checkAt,
            @Nullable String sweepError,
            @Nullable Instant readAt) {

        /** A state as before schedules were data: ACTIVE, version 1, application {@code default}. */
        public ScheduleState(
                String jobKey,
                String kind,
                String expression,
                String policy,
                String integration,
                String registeredBy,
                Instant registeredAt,
                @Nullable String previousSchedule,
                @Nullable String previousBy,
                @Nullable Instant changedAt,
                Instant sweptUntil,
                @Nullable Instant sweptAt,
                @Nullable String sweptBy,
                @Nullable Instant nextDueAt,
                int overdue,
                long missedTotal,
                @Nullable Instant lastMissedAt,
                @Nullable Instant lastSuccessAt,
                long missedLastHour) {
            this(
                    jobKey,
                    kind,
                    expression,
                    policy,
                    integration,
                    registeredBy,
                    registeredAt,
                    previousSchedule,
                    previousBy,
                    changedAt,
                    sweptUntil,
                    sweptAt,
                    sweptBy,
                    nextDueAt,
                    overdue,
                    missedTotal,
                    lastMissedAt,
                    lastSuccessAt,
                    missedLastHour,
                    "default",
                    ScheduleLedger.ACTIVE,
                    null,
                    null,
                    null,
                    1,
                    null,
                    null,
                    null,
                    null,
                    null);
        }

        /** True while an operator (or the host scheduler) has it paused: it has no due fires. */
        public boolean paused() {
            return ScheduleLedger.PAUSED.equals(state);
        }

        /** True once retired: it leaves the sweeps and the health checks until a process registers it again. */
        public boolean retired() {
            return ScheduleLedger.RETIRED.equals(state);
        }

        /**
         * True if it is ACTIVE and its check time passed more than {@code after} before the read (database clock):
         * nobody sweeps it, so its missed fires are not accounted for.
         */
        public boolean unswept(Duration after) {
            return ScheduleLedger.ACTIVE.equals(state)
                    && checkAt != null
                    && readAt != null
                    && checkAt.isBefore(readAt.minus(after));
        }

        /**
         * What an operator should look at, in words, e.g. {@code "3 fires overdue at the last sweep"}, {@code "not swept
         * since 2026-12-07T10:00:00Z"}, {@code "its sweep fails: ..."}, {@code "paused since ... by ...: ..."}; empty
         * when nothing. A RETIRED schedule needs nothing. Fires count as recently missed when the last was recorded
         * within {@code missedWithin}; the schedule as unswept per {@link #unswept}.
         */
        public List<String> attention(Duration missedWithin, Duration unsweptAfter) {
            return attention(missedWithin, unsweptAfter, null);
        }

        /**
         * {@link #attention(Duration, Duration)} with the fires overdue now ({@link TenureAdmin#overdue}) in place of
         * those overdue at the last sweep, e.g. {@code "22 fires overdue since 2026-12-07T06:10:00Z"}; {@code overdueNow}
         * null: the last sweep's count.
         */
        public List<String> attention(Duration missedWithin, Duration unsweptAfter, @Nullable OverdueFires overdueNow) {
            List<String> why = new ArrayList<>();
            if (retired()) {
                return why;
            }
            if (paused()) {
                why.add("paused since " + stateSince + " by " + stateBy + ": " + stateReason);
            }
            if (overdueNow != null) {
                if (overdueNow.any()) {
                    why.add(overdueNow.describe());
                }
            } else if (overdue > 0) {
                why.add(overdue + (overdue == 1 ? " fire" : " fires") + " overdue at the last sweep");
            }
            Instant now = readAt != null ? readAt : Instant.now();
            if (lastMissedAt != null && lastMissedAt.isAfter(now.minus(missedWithin))) {
                why.add("fires recorded MISSED, the last at " + lastMissedAt);
            }
            if (sweepError != null) {
                why.add("its sweep fails: " + sweepError);
            }
            if (unswept(unsweptAfter)) {
                why.add((sweptAt == null ? "never swept" : "not swept since " + sweptAt) + "; due for a sweep since "
                        + checkAt + " (is a process of application '" + application + "' running?)");
            }
            return why;
        }
    }

    /**
     * What {@link #retire} did: {@code retired} is false when the schedule was already RETIRED (nothing changed, no
     * audit row: {@code since}, {@code reason} and {@code by} are then the earlier retirement's). {@code previousState}
     * is its state before; {@code auditId} the audit row (0 when none); {@code catchUpsDropped} the catch-ups that were
     * still asked of processes; {@code seenAt} the last time a live process marked its registration (such a process
     * keeps running the job's fires, unaccounted for, and makes the schedule ACTIVE again when it registers the job);
     * {@code at} the database clock.
     */
    public record Retirement(
            String jobKey,
            boolean retired,
            String previousState,
            @Nullable Instant since,
            @Nullable String reason,
            @Nullable String by,
            long auditId,
            int catchUpsDropped,
            @Nullable Instant seenAt,
            Instant at) {}

    /**
     * How long an ACTIVE schedule's check time may lie in the past before it counts as unswept, for a sweeper that
     * sweeps every {@code sweepInterval}: 3 intervals, at least a minute (the sweeper's own rule for its warning).
     */
    public static Duration unsweptAfter(Duration sweepInterval) {
        Duration three = sweepInterval.multipliedBy(3);
        return three.compareTo(Duration.ofMinutes(1)) > 0 ? three : Duration.ofMinutes(1);
    }

    /** {@link ScheduleState#missedLastHour} counts up to this many fires (then it means "at least"). */
    public static final int MISSED_CAP = 10_000;

    /**
     * A fire the sweeper recorded MISSED: when, why, and which sweeper; or a summary record of many fires after a long
     * outage ({@link #summary()}).
     */
    public record MissedFire(String jobKey, String fireKey, Instant recordedAt, String reason, String sweeper) {

        /** The run of fires this record stands for, if it is a summary record. */
        public Optional<MissedSummary> summary() {
            return MissedSummary.of(fireKey, reason);
        }

        /** How many fires it stands for: 1, or a summary record's count. */
        public long fires() {
            return MissedSummary.firesOf(fireKey, reason);
        }
    }

    /**
     * The result of a {@link #forceRelease}: the epoch, owner and node name before (the node null when none was
     * recorded), the new epoch, the audit row's id, and what became of the job's Valkey lease.
     */
    public record ForceRelease(
            String jobKey,
            long oldEpoch,
            String oldOwner,
            long newEpoch,
            long auditId,
            ValkeyLease valkeyLease,
            @Nullable String oldNode) {
        /** A result without the old holder's node name. */
        public ForceRelease(
                String jobKey, long oldEpoch, String oldOwner, long newEpoch, long auditId, ValkeyLease valkeyLease) {
            this(jobKey, oldEpoch, oldOwner, newEpoch, auditId, valkeyLease, null);
        }
    }

    /** What a {@link #forceRelease} did to the job's Valkey lease. */
    public enum ValkeyLease {
        /** This admin was created without Valkey: the holder gives its Valkey lease back when it learns the loss. */
        NOT_CONFIGURED,
        /** The Valkey lease was deleted: another node can run the job at once. */
        DELETED,
        /** Valkey had no lease for the job. */
        NONE,
        /**
         * Valkey did not answer (logged at WARN). The database lease is ended all the same; the holder gives its
         * Valkey lease back when its next renewal is refused, within about a third of the TTL.
         */
        NOT_CONFIRMED
    }

    private static final Logger LOG = LoggerFactory.getLogger(TenureAdmin.class);

    private final Jdbc jdbc;
    private final String schema;
    private final String jobs;
    private final String job;
    private final String forceRelease;
    private final String lockTimeout;
    private final ScheduleReads schedules;
    private final OverdueReads overdueReads;
    private final ScheduleRetirement retirement;
    private final @Nullable LeaseEviction valkey;

    private TenureAdmin(DataSource dataSource, String schema, Duration lockTimeout, @Nullable LeaseEviction valkey) {
        this.valkey = valkey;
        this.jdbc = new Jdbc(Objects.requireNonNull(dataSource, "dataSource"), DatabaseConfig.DEFAULT_QUERY_TIMEOUT);
        this.lockTimeout = Long.toString(Math.max(1, lockTimeout.toMillis()));
        this.schema = TenureSchema.checkName(schema);
        String q = "\"" + this.schema + "\"";
        this.schedules = new ScheduleReads(jdbc, q);
        this.overdueReads = new OverdueReads(jdbc, q);
        this.retirement = new ScheduleRetirement(jdbc, q);
        String columns = "job_key, fencing_token, owner, status, claimed_at, lease_expires_at, clock_timestamp(), node";
        this.jobs = "SELECT %s FROM %s.job_execution ORDER BY job_key LIMIT ?".formatted(columns, q);
        this.job = "SELECT %s FROM %s.job_execution WHERE job_key = ?".formatted(columns, q);
        // the run the job row carried gets its ABANDONED row (the reason: who and why)
        this.forceRelease = """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                args AS (SELECT 'force-released by ' || ?::text || ': ' || ?::text AS why),
                old AS (SELECT je.job_key, je.fencing_token, je.owner, je.node, %4$s FROM %1$s.job_execution je, cfg
                    WHERE je.job_key = ? FOR UPDATE OF je),
                rel AS (UPDATE %1$s.job_execution je
                    SET fencing_token = greatest(je.fencing_token + 1,
                        (extract(epoch FROM clock_timestamp()) * 1000000)::bigint),
                    owner = NULL, node = NULL, status = 'IDLE', lease_expires_at = NULL, %3$s,
                    updated_at = clock_timestamp() FROM old WHERE je.job_key = ?
                    RETURNING je.job_key AS job, je.fencing_token),
                %5$s,
                aud AS (INSERT INTO %1$s.audit_log
                    (actor, action, job_key, reason, old_epoch, old_owner, old_node, new_epoch)
                    SELECT ?, 'force-release', ?, ?, old.fencing_token, old.owner, old.node, rel.fencing_token
                    FROM old, rel RETURNING id)
                SELECT old.fencing_token, old.owner, rel.fencing_token, (SELECT id FROM aud), %2$s, old.node
                FROM old, rel""".formatted(
                        q,
                        Sql.notifyIfListened(q, ""),
                        Sql.NO_RUN,
                        Sql.PREVIOUS,
                        Sql.abandonPrevious(q + ".job_run", "abandoned", "old", "rel", "(SELECT why FROM args)", true));
    }

    /** On schema {@value TenureSchema#DEFAULT_SCHEMA}. */
    public static TenureAdmin create(DataSource dataSource) {
        return create(dataSource, TenureSchema.DEFAULT_SCHEMA);
    }

    /** On {@code schema}; a force-release waits up to 2 s for the old holder's open fenced transactions. */
    public static TenureAdmin create(DataSource dataSource, String schema) {
        return new TenureAdmin(dataSource, schema, DatabaseConfig.DEFAULT_CLAIM_LOCK_TIMEOUT, null);
    }

    /**
     * On {@code schema}, and a {@link #forceRelease} also deletes the job's Valkey lease through {@code valkey} (e.g.
     * {@code tenure.valkeyEviction()}), so that another node can run the job at once even while the old holder is
     * stuck. Every force-release path (console, CLI, actuator) goes through here.
     */
    public static TenureAdmin create(DataSource dataSource, String schema, LeaseEviction valkey) {
        return new TenureAdmin(
                dataSource,
                schema,
                DatabaseConfig.DEFAULT_CLAIM_LOCK_TIMEOUT,
                Objects.requireNonNull(valkey, "valkey"));
    }

    /** Up to {@code limit} jobs (and election roles), by key. */
    public List<JobState> jobs(int limit) {
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be 1..10000 (got " + limit + ")");
        }
        return jdbc.run("list jobs", "*", false, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, jobs)) {
                ps.setInt(1, limit);
                return states(ps);
            }
        });
    }

    /** One job, if it has a row. */
    public Optional<JobState> job(String jobKey) {
        String key = LedgerArgs.key(jobKey);
        return jdbc.run("read job", key, false, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, job)) {
                ps.setString(1, key);
                return states(ps).stream().findFirst();
            }
        });
    }

    /** Up to {@code limit} scheduled jobs, by key. */
    public List<ScheduleState> schedules(int limit) {
        return schedules.schedules(limit(limit));
    }

    /**
     * The schedules of these jobs (those that have one), by key, in one statement: e.g. for a page of jobs. The keys
     * are only compared, not validated, so keys read from the tables always work.
     *
     * @throws IllegalArgumentException for more than 10,000 keys
     */
    public List<ScheduleState> schedules(Collection<String> jobKeys) {
        if (jobKeys.size() > 10_000) {
            throw new IllegalArgumentException("at most 10000 job keys at once (got " + jobKeys.size() + ")");
        }
        if (jobKeys.isEmpty()) {
            return List.of();
        }
        return schedules.schedulesOf(
                jobKeys.stream().map(k -> Objects.requireNonNull(k, "job key")).toArray(String[]::new));
    }

    /**
     * The overdue fires of these jobs' schedules now, by the database clock, whether or not any sweeper runs
     * ({@link OverdueFires}): walked exactly for fixed-rate schedules and the kinds whose
     * {@link dev.tenure.spi.ScheduleReader} is on the class path (Spring cron with the Boot auto-configuration, Quartz
     * with the Quartz integration), a lower bound ("1+") for kinds this process cannot read. PAUSED and RETIRED schedules have none; jobs without a schedule are left out. Three statements.
     *
     * @throws IllegalArgumentException for more than 10,000 keys
     */
    public Map<String, OverdueFires> overdue(Collection<String> jobKeys) {
        return overdue(jobKeys, Map.of());
    }

    /**
     * {@link #overdue(Collection)}, with {@code readers} that read schedules of more kinds from the ledger's text (by
     * kind, e.g. from {@link dev.tenure.Schedule#reader()} of the schedules a process registered): their fires are
     * counted exactly too.
     */
    public Map<String, OverdueFires> overdue(
            Collection<String> jobKeys, Map<String, Function<String, dev.tenure.Schedule>> readers) {
        if (jobKeys.size() > 10_000) {
            throw new IllegalArgumentException("at most 10000 job keys at once (got " + jobKeys.size() + ")");
        }
        if (jobKeys.isEmpty()) {
            return Map.of();
        }
        Map<String, Function<String, dev.tenure.Schedule>> all = new HashMap<>(readers);
        ClassPathReaders.READERS.forEach(all::putIfAbsent);
        all.putIfAbsent("fixed-rate", FIXED_RATE);
        return overdueReads.overdue(
                jobKeys.stream().map(k -> Objects.requireNonNull(k, "job key")).toArray(String[]::new), all);
    }

    /** The {@link dev.tenure.spi.ScheduleReader}s on this class path (Spring cron, Quartz), loaded once when used. */
    private static final class ClassPathReaders {
        static final Map<String, Function<String, dev.tenure.Schedule>> READERS =
                dev.tenure.spi.ScheduleReader.onClassPath(TenureAdmin.class.getClassLoader());
    }

    private static final Function<String, dev.tenure.Schedule> FIXED_RATE =
            dev.tenure.Schedule.fixedRate(Duration.ofSeconds(1)).reader().orElseThrow();

    /**
     * {@link #overdueOrMissed(Duration, Duration, int)} for the default sweep interval ({@code unswept} after a
     * minute).
     */
    public List<ScheduleState> overdueOrMissed(Duration within, int limit) {
        return overdueOrMissed(within, unsweptAfter(dev.tenure.Tenure.DEFAULT_SWEEP_INTERVAL), limit);
    }

    /**
     * Up to {@code limit} scheduled jobs that need an operator's eye ({@link ScheduleState#attention} says why): fires
     * overdue at the last sweep, a fire recorded MISSED within the last {@code within} (a summary record too), a sweep
     * that fails, or an ACTIVE schedule whose check time passed more than {@code unsweptAfter} ago (nobody sweeps it;
     * see {@link #unsweptAfter}); and every PAUSED schedule, listed last. {@link #needingAttention} adds the fires
     * overdue now, which need no sweeper. RETIRED schedules never appear. One
     * statement over {@code job_schedule}, by key.
     */
    public List<ScheduleState> overdueOrMissed(Duration within, Duration unsweptAfter, int limit) {
        Objects.requireNonNull(within, "within");
        Objects.requireNonNull(unsweptAfter, "unsweptAfter");
        return schedules.attention(within, unsweptAfter, limit(limit), false);
    }

    /**
     * A schedule that needs an operator's eye ({@link #needingAttention}): its state, its fires overdue now, and why in
     * words (never empty).
     */
    public record Attention(ScheduleState schedule, OverdueFires overdue, List<String> why) {
        public Attention {
            why = List.copyOf(why);
        }
    }

    /**
     * {@link #overdueOrMissed(Duration, Duration, int)} with the fires overdue now ({@link #overdue(Collection, Map)}),
     * counted with the database clock whether or not a sweeper runs: also an ACTIVE schedule whose only trouble is that
     * no live sweeper counted its overdue fires (a stopped fleet) is listed. Up to {@code limit}, paused ones last;
     * {@code readers} as in {@link #overdue(Collection, Map)}.
     */
    public List<Attention> needingAttention(
            Duration within,
            Duration unsweptAfter,
            int limit,
            Map<String, Function<String, dev.tenure.Schedule>> readers) {
        Objects.requireNonNull(within, "within");
        Objects.requireNonNull(unsweptAfter, "unsweptAfter");
        List<ScheduleState> read = schedules.attention(within, unsweptAfter, 10_000, true);
        Map<String, OverdueFires> late =
                overdue(read.stream().map(ScheduleState::jobKey).toList(), readers);
        List<Attention> out = new ArrayList<>();
        for (ScheduleState s : read) {
            OverdueFires o = late.get(s.jobKey());
            if (o == null || out.size() == limit(limit)) {
                continue;
            }
            List<String> why = s.attention(within, unsweptAfter, o);
            if (!why.isEmpty()) { // a fire past its grace that ran after all needs nothing
                out.add(new Attention(s, o, why));
            }
        }
        return out;
    }

    /**
     * The versions of {@code jobKey}'s schedule and the spans in which it had no due fires, newest first (at most
     * {@value ScheduleHistory#MAX} of each); both empty when it has no schedule.
     */
    public ScheduleHistory scheduleHistory(String jobKey) {
        return schedules.history(LedgerArgs.key(jobKey));
    }

    /**
     * Retires {@code jobKey}'s schedule by hand, in one statement: state RETIRED with {@code reason} and {@code actor},
     * its open span ended and a RETIRED span opened, {@code check_at} cleared (the sweeper and the health checks leave
     * it), its pending catch-ups dropped, and an audit row ({@code action = 'retire'}). A schedule already RETIRED is
     * left as it is ({@link Retirement#retired()} false, no audit row). A process that registers the job again makes it
     * ACTIVE again. Needs UPDATE on {@code job_schedule} and {@code job_schedule_span}, INSERT on {@code job_schedule_span}
     * and {@code audit_log}, DELETE on {@code job_catch_up}.
     *
     * @throws IllegalArgumentException for a bad key, an empty or over-long reason or actor, or a job without a schedule
     */
    public Retirement retire(String jobKey, String reason, String actor) {
        String key = LedgerArgs.key(jobKey);
        String why = text("reason", reason, 500);
        String who = text("actor", actor, 200);
        return retirement
                .retire(key, why, who)
                .orElseThrow(() -> new IllegalArgumentException(
                        "job '" + key + "' has no schedule in Tenure's ledger (job_schedule): nothing to retire"));
    }

    /** One job's schedule, if it has one. */
    public Optional<ScheduleState> schedule(String jobKey) {
        return schedules.schedule(LedgerArgs.key(jobKey)).stream().findFirst();
    }

    /**
     * Up to {@code limit} fires recorded MISSED within the last {@code within}, newest first: of {@code jobKey}, or of
     * every job when it is null.
     */
    public List<MissedFire> missedFires(String jobKey, Duration within, int limit) {
        Objects.requireNonNull(within, "within");
        if (within.isNegative() || within.isZero()) {
            throw new IllegalArgumentException("within must be positive (got " + within + ")");
        }
        return schedules.missed(jobKey == null ? null : LedgerArgs.key(jobKey), within, limit(limit));
    }

    private static int limit(int limit) {
        if (limit < 1 || limit > 10_000) {
            throw new IllegalArgumentException("limit must be 1..10000 (got " + limit + ")");
        }
        return limit;
    }

    private static List<JobState> states(PreparedStatement ps) throws java.sql.SQLException {
        List<JobState> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                Instant expires = Rows.instant(rs, 6);
                String owner = rs.getString(3);
                Duration left = Jdbc.between(Rows.instant(rs, 7), expires);
                out.add(new JobState(
                        rs.getString(1),
                        rs.getLong(2),
                        owner,
                        rs.getString(4),
                        Rows.instant(rs, 5),
                        expires,
                        left,
                        rs.getString(8)));
            }
        }
        return out;
    }

    /**
     * Ends {@code jobKey}'s lease whoever holds it: bumps the epoch (so the old holder's fence fails), clears the
     * owner, marks a RUNNING run ABANDONED, records {@code actor} and {@code reason} in {@code audit_log}, and notifies
     * the job's waiters as a release does; all in one statement. Then, if this admin has Valkey, it deletes the job's
     * Valkey lease; a Valkey fault there does not undo the release ({@link ValkeyLease#NOT_CONFIRMED}).
     *
     * @throws IllegalArgumentException       for a bad key, an empty or over-long reason or actor, or an unknown job
     * @throws dev.tenure.LeaseStoreUnavailableException on faults, or if the old holder's fenced transaction stayed open
     *                                        longer than the lock timeout (nothing changed then: try again)
     */
    public ForceRelease forceRelease(String jobKey, String reason, String actor) {
        String key = LedgerArgs.key(jobKey);
        String why = text("reason", reason, 500);
        String who = text("actor", actor, 200);
        Optional<ForceRelease> done = jdbc.run("force-release", key, true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, forceRelease)) {
                int i = 1;
                ps.setString(i++, lockTimeout);
                ps.setString(i++, who);
                ps.setString(i++, why);
                ps.setString(i++, key);
                ps.setString(i++, key);
                ps.setString(i++, who);
                ps.setString(i++, key);
                ps.setString(i++, why);
                String channel = Channels.of(schema, key);
                ps.setString(i++, channel);
                ps.setString(i++, key);
                ps.setString(i, channel);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next()
                            ? Optional.of(new ForceRelease(
                                    key,
                                    rs.getLong(1),
                                    rs.getString(2),
                                    rs.getLong(3),
                                    rs.getLong(4),
                                    ValkeyLease.NOT_CONFIGURED,
                                    rs.getString(6)))
                            : Optional.empty();
                }
            }
        });
        ForceRelease r =
                done.orElseThrow(() -> new IllegalArgumentException("no job '" + key + "' in Tenure's tables"));
        return new ForceRelease(
                key, r.oldEpoch(), r.oldOwner(), r.newEpoch(), r.auditId(), evictValkeyLease(key), r.oldNode());
    }

    /** After the database statement: the job's Valkey lease deleted, so a stuck holder's filter keeps nobody out. */
    private ValkeyLease evictValkeyLease(String key) {
        if (valkey == null) {
            return ValkeyLease.NOT_CONFIGURED;
        }
        try {
            return valkey.evict(key) ? ValkeyLease.DELETED : ValkeyLease.NONE;
        } catch (RuntimeException e) {
            LOG.warn(
                    "force-release of '{}': the database lease is ended, but its Valkey lease could not be deleted ({}); "
                            + "the holder gives it back when its next renewal is refused",
                    key,
                    e.getMessage());
            return ValkeyLease.NOT_CONFIRMED;
        }
    }

    private static String text(String what, String value, int max) {
        if (value == null || value.isBlank() || value.length() > max) {
            throw new IllegalArgumentException(what + " must have 1 to " + max + " characters, not blank (got "
                    + (value == null ? "null" : value.length() + " characters") + ")");
        }
        return value;
    }
}
