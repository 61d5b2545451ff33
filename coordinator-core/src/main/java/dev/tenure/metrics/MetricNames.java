package dev.tenure.metrics;

/** Every meter name Tenure publishes, in one place. */
public final class MetricNames {

    public static final String ACQUIRE = "tenure.lease.acquire";
    public static final String HOLD = "tenure.lease.hold";
    public static final String RETRIES = "tenure.lease.retries";
    public static final String RENEW_FAILURES = "tenure.lease.renew.failures";
    public static final String LOST = "tenure.lease.lost";
    public static final String RELEASE_FAILURES = "tenure.lease.release.failures";
    /** Fence checks (and completions) of coordinated runs rejected because the run's epoch was stale; tag {@code job}. */
    public static final String FENCE_REJECTED = "tenure.fence.rejected";
    /** Coordinated runs that executed without a single fence check: their writes were not protected; tag {@code job}. */
    public static final String RUN_UNFENCED = "tenure.run.unfenced";

    public static final String TTL_HEADROOM = "tenure.lease.ttl.headroom";
    /** Scheduler fires seen by an integration, tagged {@code integration}, {@code job} and {@code outcome}. */
    public static final String JOB_FIRES = "tenure.job.fires";
    /** Quartz triggers whose fire keys may differ between nodes, tagged {@code job} and {@code reason}. */
    public static final String QUARTZ_SCHEDULE_WARNINGS = "tenure.quartz.schedule.warnings";

    /**
     * Fires the sweeper recorded MISSED, tagged {@code job} and {@code reason}: {@code not_run}, {@code holder_lost},
     * {@code shutdown}, {@code force_released}, {@code abandoned} or {@code rejected_stale}.
     */
    public static final String FIRE_MISSED = "tenure.fire.missed";
    /** Fires due and neither completed nor running at the last sweep (a gauge on the sweeping node), tagged {@code job}. */
    public static final String FIRE_OVERDUE = "tenure.fire.overdue";
    /**
     * Schedules (of any application) whose check time passed minutes ago and that nobody swept: their missed fires are
     * not accounted for (a gauge on the sweeping node).
     */
    public static final String SCHEDULES_UNSWEPT = "tenure.schedule.unswept";
    /** How far this node's clock is ahead of the database's, in seconds (negative: behind), as the sweeper measured. */
    public static final String CLOCK_SKEW = "tenure.clock.skew";

    /**
     * 1 while the coordinator's runs bypass an unreachable Valkey and use the database alone, else 0 (a gauge), tagged
     * {@code mode}; always 0 in the modes {@code database} and {@code valkey}.
     */
    public static final String FALLBACK_ACTIVE = "tenure.fallback.active";
    /** Times the coordinator's runs started to bypass an unreachable Valkey (the breaker opened), tagged {@code mode}. */
    public static final String FALLBACK_STARTED = "tenure.fallback.started";

    private MetricNames() {}
}
