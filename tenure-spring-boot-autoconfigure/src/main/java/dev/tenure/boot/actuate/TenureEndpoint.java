package dev.tenure.boot.actuate;

import dev.tenure.JobCoordinator;
import dev.tenure.Tenure;
import dev.tenure.db.OverdueFires;
import dev.tenure.db.TenureAdmin;
import java.security.Principal;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code tenure} actuator endpoint. Read: {@code GET /actuator/tenure} lists the jobs (holder, epoch, lease time
 * left by the database clock, latest runs); {@code GET /actuator/tenure/{jobKey}} shows one job and its latest runs.
 * Write, refused unless {@code management.endpoint.tenure.access=unrestricted}: {@code POST /actuator/tenure/{jobKey}}
 * with {@code {"reason": "..."}} force-releases the job ({@link TenureAdmin#forceRelease}): its epoch is bumped, so
 * the old holder's next fence check, completion or outcome fails and nothing it still writes commits, its Valkey lease
 * is deleted (so another node can run the job at once), and an audit row records the actor (the authenticated
 * principal's name, else {@code actuator}) and the reason. Thread-safe.
 */
@Endpoint(id = "tenure", defaultAccess = Access.READ_ONLY)
public class TenureEndpoint {

    static final int JOBS = 100;
    static final int RUNS_PER_JOB_IN_LIST = 3;
    static final int RUNS_OF_ONE_JOB = 20;

    /**
     * Every job, the coordinator's state, the scheduled jobs with their state and the sweeper's account of their fires,
     * and the fires recorded MISSED in the last hour (newest first; a summary record as one).
     */
    public record Jobs(
            String mode,
            boolean fallbackActive,
            List<Job> jobs,
            List<Scheduled> schedules,
            List<Missed> missedLastHour) {}

    /**
     * A scheduled job: its schedule and policy, the next fire due, fires overdue now (by the database clock, whether or
     * not a sweeper runs: {@link TenureAdmin#overdue}; since {@code overdueSince}, null when none is; a lower bound
     * unless {@code overdueExact}), MISSED in all, last success, and
     * the schedule as data: the application that registers it, its state (ACTIVE, PAUSED or RETIRED) since when, why
     * and by whom, its version and since when it counts, the last time a live process marked its registration, when
     * the sweeper looks next (null for a retired one) and why its last sweep failed (null: it did not).
     */
    public record Scheduled(
            String jobKey,
            String kind,
            String expression,
            String policy,
            String integration,
            String nextDueAt,
            int overdue,
            long missedTotal,
            String lastMissedAt,
            String lastSuccessAt,
            String previousSchedule,
            String application,
            String state,
            String stateSince,
            String stateReason,
            String stateBy,
            int version,
            String versionFrom,
            String seenAt,
            String checkAt,
            String sweepError,
            String overdueSince,
            boolean overdueExact) {

        /** A scheduled job without since when its fires are overdue (an exact count). */
        public Scheduled(
                String jobKey,
                String kind,
                String expression,
                String policy,
                String integration,
                String nextDueAt,
                int overdue,
                long missedTotal,
                String lastMissedAt,
                String lastSuccessAt,
                String previousSchedule,
                String application,
                String state,
                String stateSince,
                String stateReason,
                String stateBy,
                int version,
                String versionFrom,
                String seenAt,
                String checkAt,
                String sweepError) {
            this(
                    jobKey,
                    kind,
                    expression,
                    policy,
                    integration,
                    nextDueAt,
                    overdue,
                    missedTotal,
                    lastMissedAt,
                    lastSuccessAt,
                    previousSchedule,
                    application,
                    state,
                    stateSince,
                    stateReason,
                    stateBy,
                    version,
                    versionFrom,
                    seenAt,
                    checkAt,
                    sweepError,
                    null,
                    true);
        }
    }

    /**
     * A fire the sweeper recorded MISSED, and why; {@code fires} is 1, or the number of fires a summary record stands
     * for (its {@code fireKey} is {@code <first>..<last>}).
     */
    public record Missed(String jobKey, String fireKey, String recordedAt, String reason, long fires) {}

    /**
     * One job as the database sees it now; {@code holder} is the holder's node name (its owner id when it recorded
     * none) and {@code owner} its owner id, both null when nobody holds it.
     */
    public record Job(
            String jobKey,
            long epoch,
            String holder,
            String owner,
            String status,
            String claimedAt,
            String leaseExpiresAt,
            long leaseLeftMillis,
            List<Run> lastRuns) {}

    /**
     * One run of a job (times by the database clock); {@code node} is the name of the node that ran it (its owner id
     * when it recorded none).
     */
    public record Run(
            String fireKey,
            String status,
            long epoch,
            String node,
            String owner,
            int attempt,
            String startedAt,
            String finishedAt,
            String error) {}

    /**
     * What a force-release did: the epoch and holder before (its node name, or owner id when it recorded none), the new
     * epoch, the audit row, and what became of the job's Valkey lease ({@link TenureAdmin.ValkeyLease}).
     */
    public record Released(
            String jobKey,
            long oldEpoch,
            String oldHolder,
            long newEpoch,
            long auditId,
            String actor,
            String valkeyLease) {}

    private final Tenure tenure;
    private final TenureAdmin admin;
    private final RecentRuns runs;

    /**
     * @param dataSource the data source of Tenure's ledger
     * @param schema     the schema of Tenure's tables
     */
    public TenureEndpoint(Tenure tenure, TenureAdmin admin, javax.sql.DataSource dataSource, String schema) {
        this.tenure = tenure;
        this.admin = admin;
        this.runs = new RecentRuns(dataSource, schema);
    }

    @ReadOperation
    public Jobs jobs() throws SQLException {
        List<TenureAdmin.JobState> states = admin.jobs(JOBS);
        Map<String, List<Run>> latest =
                runs.of(states.stream().map(TenureAdmin.JobState::jobKey).toList(), RUNS_PER_JOB_IN_LIST);
        JobCoordinator c = tenure.coordinator();
        return new Jobs(
                c.mode().name(),
                c.inFallback(),
                states.stream()
                        .map(s -> job(s, latest.getOrDefault(s.jobKey(), List.of())))
                        .toList(),
                scheduled(admin.schedules(JOBS)),
                admin.missedFires(null, java.time.Duration.ofHours(1), JOBS).stream()
                        .map(m -> new Missed(m.jobKey(), m.fireKey(), iso(m.recordedAt()), m.reason(), m.fires()))
                        .toList());
    }

    private List<Scheduled> scheduled(List<TenureAdmin.ScheduleState> all) {
        Map<String, OverdueFires> late = admin.overdue(
                all.stream().map(TenureAdmin.ScheduleState::jobKey).toList(), ScheduleReaders.of(tenure));
        return all.stream().map(s -> scheduled(s, late.get(s.jobKey()))).toList();
    }

    private static Scheduled scheduled(TenureAdmin.ScheduleState s, OverdueFires late) {
        return new Scheduled(
                s.jobKey(),
                s.kind(),
                s.expression(),
                s.policy(),
                s.integration(),
                iso(s.nextDueAt()),
                late == null ? s.overdue() : (int) Math.min(Integer.MAX_VALUE, late.count()),
                s.missedTotal(),
                iso(s.lastMissedAt()),
                iso(s.lastSuccessAt()),
                s.previousSchedule(),
                s.application(),
                s.state(),
                iso(s.stateSince()),
                s.stateReason(),
                s.stateBy(),
                s.version(),
                iso(s.versionFrom()),
                iso(s.seenAt()),
                iso(s.checkAt()),
                s.sweepError(),
                late == null ? null : iso(late.since()),
                late == null || late.exact());
    }

    /** One job; no job = 404. */
    @ReadOperation
    public Job job(@Selector String jobKey) throws SQLException {
        TenureAdmin.JobState s = admin.job(badRequestIfInvalid(jobKey)).orElse(null);
        return s == null
                ? null
                : job(s, runs.of(List.of(s.jobKey()), RUNS_OF_ONE_JOB).getOrDefault(s.jobKey(), List.of()));
    }

    @WriteOperation
    public Released forceRelease(@Selector String jobKey, String reason, SecurityContext security) {
        Principal principal = security.getPrincipal();
        String actor = principal == null || principal.getName() == null ? "actuator" : principal.getName();
        try {
            TenureAdmin.ForceRelease r = admin.forceRelease(jobKey, reason, actor);
            return new Released(
                    r.jobKey(),
                    r.oldEpoch(),
                    r.oldNode() != null ? r.oldNode() : r.oldOwner(),
                    r.newEpoch(),
                    r.auditId(),
                    actor,
                    r.valkeyLease().name());
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
        }
    }

    private static Job job(TenureAdmin.JobState s, List<Run> lastRuns) {
        String holder = s.owner() == null ? null : s.node() != null ? s.node() : s.owner();
        return new Job(
                s.jobKey(),
                s.epoch(),
                holder,
                s.owner(),
                s.status(),
                iso(s.claimedAt()),
                iso(s.leaseExpiresAt()),
                s.leaseLeft().toMillis(),
                lastRuns);
    }

    private static String badRequestIfInvalid(String jobKey) {
        try {
            return dev.tenure.spi.LeaseKeys.validate(jobKey);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), e.getMessage());
        }
    }

    private static String iso(Instant t) {
        return t == null ? null : t.toString();
    }
}
