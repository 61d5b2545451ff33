package dev.tenure.bench.coordinated;

import dev.tenure.Schedule;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fixed period with an offset: fires at every multiple of {@code period} since the epoch, plus {@code offset}. It is
 * how a cron schedule of many jobs looks: each job fires once a minute, at a second of its own. The scale benchmark
 * gives job {@code j} of {@code J} the offset {@code j * period / J} (slots spread over the period) or zero (every
 * job at the top of the period).
 *
 * <p>The schedule begins at {@code origin} (epoch milliseconds, any instant, shared by a node's schedules): before the benchmark
 * sets it, no fire is due, as an application's schedules begin when it starts firing. So the sweeper finds nothing
 * overdue while the nodes register, however long that takes. The origin is set once and read as a volatile; apart from
 * it the schedule is immutable. Thread-safe.
 *
 * @param period time between two fires of the job
 * @param offset where in the period the job fires, from zero to under {@code period}
 * @param origin the first instant a fire may be due; {@link Long#MAX_VALUE} until set
 */
record SlotSchedule(Duration period, Duration offset, AtomicLong origin) implements Schedule {

    SlotSchedule {
        Objects.requireNonNull(period, "period");
        Objects.requireNonNull(offset, "offset");
        Objects.requireNonNull(origin, "origin");
        if (period.toMillis() < 1 || offset.isNegative() || offset.compareTo(period) >= 0) {
            throw new IllegalArgumentException(
                    "need 1 ms <= period and 0 <= offset < period (got " + period + ", " + offset + ")");
        }
    }

    /** The offset of job {@code job} of {@code jobs}: spread evenly over the period, or zero for every job. */
    static Duration offset(int job, int jobs, Duration period, boolean spread) {
        return spread ? Duration.ofMillis(job * period.toMillis() / jobs) : Duration.ZERO;
    }

    @Override
    public String kind() {
        return "fixed-rate-offset";
    }

    @Override
    public String expression() {
        return period + " at +" + offset;
    }

    @Override
    public Optional<Instant> nextAfter(Instant after) {
        long first = origin.get();
        if (first == Long.MAX_VALUE) {
            return Optional.empty();
        }
        long p = period.toMillis();
        long o = offset.toMillis();
        long from = Math.max(after.toEpochMilli(), first - 1);
        return Optional.of(Instant.ofEpochMilli((Math.floorDiv(from - o, p) + 1) * p + o));
    }

    /** The fire time of this job in the period that starts at {@code periodStart} (a multiple of the period). */
    long fireAt(long periodStartMillis) {
        return periodStartMillis + offset.toMillis();
    }

    /** This job's first slot at or after {@code t} (epoch ms), whatever the origin. */
    long firstAtOrAfter(long t) {
        long p = period.toMillis();
        long o = offset.toMillis();
        return Math.floorDiv(t - o + p - 1, p) * p + o;
    }
}
