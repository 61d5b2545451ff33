package dev.tenure.db;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One job's schedule through time, as the ledger records it ({@link TenureAdmin#scheduleHistory}): its versions
 * ({@code job_schedule_version}) and the spans in which it had no due fires ({@code job_schedule_span}), each newest
 * first and at most {@value #MAX} of them. Immutable.
 */
public record ScheduleHistory(String jobKey, List<Version> versions, List<Span> spans) {

    /** At most this many versions and this many spans are read. */
    public static final int MAX = 100;

    public ScheduleHistory {
        versions = List.copyOf(versions);
        spans = List.copyOf(spans);
    }

    /**
     * Version {@code version} of the schedule: {@code kind} and {@code expression}, its policy as text, the node that
     * registered it, accounted for from {@code validFrom} (null: from the start) until {@code validUntil} (null: it is
     * the current one).
     */
    public record Version(
            int version,
            String kind,
            String expression,
            String policy,
            String registeredBy,
            @Nullable Instant validFrom,
            @Nullable Instant validUntil) {}

    /**
     * A span without due fires: {@code state} PAUSED (an operator paused or unscheduled the job) or RETIRED (no live
     * process registered it, or an operator retired it), from {@code from} until {@code until} (null: it lasts), why,
     * and who set it.
     */
    public record Span(String state, Instant from, @Nullable Instant until, String reason, String setBy) {}
}
