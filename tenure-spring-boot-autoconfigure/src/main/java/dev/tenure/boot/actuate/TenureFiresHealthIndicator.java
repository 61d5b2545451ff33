package dev.tenure.boot.actuate;

import dev.tenure.db.TenureAdmin;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether every fire of the scheduled jobs is accounted for (health component {@code tenureFires}): jobs with fires
 * overdue at the sweeper's last sweep, or with a fire recorded MISSED in the last hour, are listed with the counts and
 * the last missed time; a job whose schedule is retired is not. The status is UP with those details, or DOWN while there are any (configurable), since a missed
 * fire is something an operator must look at but the application itself may be fine. Reads one statement of Tenure's
 * ledger, so every instance reports the same. Thread-safe.
 */
public final class TenureFiresHealthIndicator extends AbstractHealthIndicator {

    /** How far back a MISSED fire keeps the job in the report. */
    public static final Duration WINDOW = Duration.ofHours(1);

    private static final int MAX_LISTED = 50;

    private final TenureAdmin admin;
    private final boolean downWhenOverdue;

    public TenureFiresHealthIndicator(TenureAdmin admin, boolean downWhenOverdue) {
        super("Tenure fires health check failed");
        this.admin = admin;
        this.downWhenOverdue = downWhenOverdue;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<TenureAdmin.ScheduleState> jobs = admin.overdueOrMissed(WINDOW, MAX_LISTED);
        Map<String, Object> details = new LinkedHashMap<>();
        int overdue = 0;
        for (TenureAdmin.ScheduleState s : jobs) {
            overdue += s.overdue();
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("overdue", s.overdue());
            job.put("missedTotal", s.missedTotal());
            if (s.lastMissedAt() != null) {
                job.put("lastMissedAt", s.lastMissedAt().toString());
            }
            if (s.lastSuccessAt() != null) {
                job.put("lastSuccessAt", s.lastSuccessAt().toString());
            }
            details.put(s.jobKey(), job);
        }
        builder.withDetail(
                "summary",
                jobs.isEmpty()
                        ? "every fire accounted for"
                        : jobs.size() + " job(s) with overdue or recently missed fires (" + overdue + " overdue now)");
        if (!details.isEmpty()) {
            builder.withDetail("jobs", details);
        }
        if (!jobs.isEmpty() && downWhenOverdue) {
            builder.down();
        } else {
            builder.up();
        }
    }
}
