package dev.tenure.boot.actuate;

import dev.tenure.Schedule;
import dev.tenure.Tenure;
import dev.tenure.db.OverdueFires;
import dev.tenure.db.TenureAdmin;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether every fire of the scheduled jobs is accounted for (health component {@code tenureFires}). Listed, each with
 * its state, application and why ({@link TenureAdmin.ScheduleState#attention}): jobs with fires overdue now, counted
 * with the database clock whether or not a sweeper runs ({@link TenureAdmin#overdue}: {@code overdue},
 * {@code overdueSince}, {@code overdueExact}; a whole application's fleet may be down), with a fire recorded MISSED in the last hour (a summary record of many fires too), whose sweep
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
    private final Supplier<Map<String, Function<String, Schedule>>> readers;

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
        this(admin, downWhenOverdue, sweepInterval, Map::of);
    }

    private TenureFiresHealthIndicator(
            TenureAdmin admin,
            boolean downWhenOverdue,
            Duration sweepInterval,
            Supplier<Map<String, Function<String, Schedule>>> readers) {
        super("Tenure fires health check failed");
        this.admin = admin;
        this.downWhenOverdue = downWhenOverdue;
        this.unsweptAfter = TenureAdmin.unsweptAfter(sweepInterval);
        this.readers = readers;
    }

    /**
     * As the constructor, and the overdue fires of schedules of the kinds {@code tenure}'s jobs registered (e.g. Spring
     * cron) are counted exactly too (fixed-rate ones always are; other kinds as at least one).
     */
    public static TenureFiresHealthIndicator of(
            TenureAdmin admin, boolean downWhenOverdue, Duration sweepInterval, Tenure tenure) {
        return new TenureFiresHealthIndicator(admin, downWhenOverdue, sweepInterval, () -> ScheduleReaders.of(tenure));
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        // overdue now, by the database clock: a stopped fleet's fires too, which no live sweeper counts
        List<TenureAdmin.Attention> listed = admin.needingAttention(WINDOW, unsweptAfter, MAX_LISTED, readers.get());
        Map<String, Object> details = new LinkedHashMap<>();
        long overdue = 0;
        boolean atLeast = false;
        int paused = 0;
        int alarming = 0;
        for (TenureAdmin.Attention a : listed) {
            TenureAdmin.ScheduleState s = a.schedule();
            OverdueFires o = a.overdue();
            overdue += o.count();
            atLeast |= o.any() && !o.exact();
            paused += s.paused() ? 1 : 0;
            alarming += s.paused() ? 0 : 1;
            details.put(s.jobKey(), job(s, o, a.why()));
        }
        String summary = alarming == 0
                ? "every fire accounted for"
                : alarming + " job(s) need attention (" + overdue + (atLeast ? "+" : "") + " overdue now)";
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

    private static Map<String, Object> job(TenureAdmin.ScheduleState s, OverdueFires o, List<String> why) {
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("state", s.state());
        job.put("application", s.application());
        job.put("why", why);
        job.put("overdue", o == null ? s.overdue() : o.count());
        if (o != null && o.any()) {
            job.put("overdueExact", o.exact());
            if (o.since() != null) {
                job.put("overdueSince", o.since().toString());
            }
        }
        job.put("overdueAtLastSweep", s.overdue());
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
