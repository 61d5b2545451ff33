package dev.tenure.boot.actuate;

import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether every fire of the scheduled jobs is accounted for (health component {@code tenureFires}). Listed, each with
 * its state, application and why ({@link TenureAdmin.ScheduleState#attention}): jobs with fires overdue at the
 * sweeper's last sweep, with a fire recorded MISSED in the last hour (a summary record of many fires too), whose sweep
 * fails, or that nobody sweeps (ACTIVE, and its check time passed more than {@link TenureAdmin#unsweptAfter} of the
 * sweep interval ago: no process of its application runs a sweeper that can read it); and PAUSED jobs, as paused.
 * RETIRED jobs are never listed: a removed job stops alarming once it is retired. The status is UP with those details,
 * or DOWN while any but paused ones are listed (configurable), since a missed fire is something an operator must look
 * at but the application itself may be fine. Reads one statement of Tenure's ledger, so every instance reports the
 * same. Thread-safe.
 */
public final class TenureFiresHealthIndicator extends AbstractHealthIndicator {

    /** How far back a MISSED fire keeps the job in the report. */
    public static final Duration WINDOW = Duration.ofHours(1);

    private static final int MAX_LISTED = 50;

    private final TenureAdmin admin;
    private final boolean downWhenOverdue;
    private final Duration unsweptAfter;

    /** For the default sweep interval ({@link Tenure#DEFAULT_SWEEP_INTERVAL}). */
    public TenureFiresHealthIndicator(TenureAdmin admin, boolean downWhenOverdue) {
        this(admin, downWhenOverdue, Tenure.DEFAULT_SWEEP_INTERVAL);
    }

    /**
     * @param downWhenOverdue DOWN (rather than UP with the details) while a job that is not paused is listed
     * @param sweepInterval   how often the sweeper sweeps: a schedule not swept for 3 of them (at least a minute) is
     *                        listed
     */
    public TenureFiresHealthIndicator(TenureAdmin admin, boolean downWhenOverdue, Duration sweepInterval) {
        super("Tenure fires health check failed");
        this.admin = admin;
        this.downWhenOverdue = downWhenOverdue;
        this.unsweptAfter = TenureAdmin.unsweptAfter(sweepInterval);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<TenureAdmin.ScheduleState> jobs = admin.overdueOrMissed(WINDOW, unsweptAfter, MAX_LISTED);
        Map<String, Object> details = new LinkedHashMap<>();
        int overdue = 0;
        int paused = 0;
        for (TenureAdmin.ScheduleState s : jobs) {
            overdue += s.overdue();
            paused += s.paused() ? 1 : 0;
            details.put(s.jobKey(), job(s));
        }
        int alarming = jobs.size() - paused;
        String summary = alarming == 0
                ? "every fire accounted for"
                : alarming + " job(s) need attention (" + overdue + " overdue now)";
        if (paused > 0) {
            summary += alarming == 0 ? "; " + paused + " job(s) paused" : "; " + paused + " paused";
        }
        builder.withDetail("summary", summary);
        if (!details.isEmpty()) {
            builder.withDetail("jobs", details);
        }
        if (alarming > 0 && downWhenOverdue) {
            builder.down();
        } else {
            builder.up();
        }
    }

    private Map<String, Object> job(TenureAdmin.ScheduleState s) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("state", s.state());
        job.put("application", s.application());
        job.put("why", s.attention(WINDOW, unsweptAfter));
        job.put("overdue", s.overdue());
        job.put("missedTotal", s.missedTotal());
        if (s.lastMissedAt() != null) {
            job.put("lastMissedAt", s.lastMissedAt().toString());
        }
        if (s.lastSuccessAt() != null) {
            job.put("lastSuccessAt", s.lastSuccessAt().toString());
        }
        if (s.sweptAt() != null) {
            job.put("sweptAt", s.sweptAt().toString());
        }
        return job;
    }
}
