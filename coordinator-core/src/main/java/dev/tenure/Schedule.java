package dev.tenure;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * When a job's fires are due, as the host scheduler fires them: Tenure's sweeper walks it to find fires that were due
 * and never completed ({@link ScheduledJob}). The fire key of each fire is the one the integration passes to the
 * coordinator for that fire, so a catch-up and the regular fire are the same fire and run at most once together.
 *
 * <p>Implementations are immutable and thread-safe. {@link #fixedRate} is here; the Spring Boot starter has
 * {@code @Scheduled} cron, the Quartz integration has Quartz's triggers.
 */
public interface Schedule {

    /** What kind of schedule this is, stored in the ledger: {@code fixed-rate}, {@code spring-cron}, {@code quartz}, ... */
    String kind();

    /** The schedule as text, stored in the ledger and shown to operators, e.g. {@code 0 0 2 * * * (UTC)} or {@code PT2S}. */
    String expression();

    /**
     * The first fire time strictly after {@code after}, if the schedule has one.
     *
     * @throws NullPointerException if {@code after} is null
     */
    Optional<Instant> nextAfter(Instant after);

    /**
     * How to read a schedule of this kind back from its {@link #expression()} as the ledger stores it. A sweeper walks
     * an earlier version of a job's schedule with it, and a job that only another process of the application
     * registered. Empty by default: a schedule of this kind is then walked only by a process that registered it. The
     * reader throws {@link IllegalArgumentException} for an expression it cannot read.
     */
    default Optional<Function<String, Schedule>> reader() {
        return Optional.empty();
    }

    /** The fire key of the fire due at {@code fireTime}: by default the ISO-8601 instant, e.g. {@code 2026-12-02T02:00:00Z}. */
    default String fireKey(Instant fireTime) {
        return fireTime.toString();
    }

    /**
     * Fires at every multiple of {@code period} since the epoch (1970-01-01T00:00:00Z), so every process names a fire
     * alike: the slots of Spring's {@code @Scheduled(fixedRate = ...)} under {@code @Coordinated}, and of loops that
     * compute their fire key as {@code floor(now / period) * period}.
     *
     * @throws IllegalArgumentException if {@code period} is under one millisecond
     */
    static Schedule fixedRate(Duration period) {
        return new FixedRate(period);
    }

    /** See {@link Schedule#fixedRate}. */
    record FixedRate(Duration period) implements Schedule {

        public FixedRate {
            Objects.requireNonNull(period, "period");
            if (period.toMillis() < 1) {
                throw new IllegalArgumentException("a fixed rate must be at least 1 ms (got " + period + ")");
            }
        }

        @Override
        public String kind() {
            return "fixed-rate";
        }

        @Override
        public String expression() {
            return period.toString();
        }

        @Override
        public Optional<Function<String, Schedule>> reader() {
            return Optional.of(FixedRate::read);
        }

        /** A fixed rate from its expression, an ISO-8601 duration such as {@code PT2S}. */
        static Schedule read(String expression) {
            try {
                return new FixedRate(Duration.parse(expression));
            } catch (java.time.format.DateTimeParseException e) {
                throw new IllegalArgumentException(
                        "not a fixed rate: '" + expression + "' (expected an ISO-8601 " + "duration such as PT2S)", e);
            }
        }

        @Override
        public Optional<Instant> nextAfter(Instant after) {
            long p = period.toMillis();
            return Optional.of(Instant.ofEpochMilli(Math.multiplyExact(Math.floorDiv(after.toEpochMilli(), p) + 1, p)));
        }

        /** The slot of a fire at {@code now}: {@code floor(now / period) * period}. */
        public Instant slotOf(Instant now) {
            long p = period.toMillis();
            return Instant.ofEpochMilli(Math.floorDiv(now.toEpochMilli(), p) * p);
        }
    }
}
