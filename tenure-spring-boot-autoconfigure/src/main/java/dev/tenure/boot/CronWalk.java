package dev.tenure.boot;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Optional;
import org.springframework.scheduling.support.CronExpression;

/**
 * Walks the times of a Spring {@link CronExpression} in a zone, forward and back, in a bounded number of steps.
 *
 * <p>Spring 7's {@code next} can return its argument, or an earlier time, before a DST overlap. With
 * {@code 0 0 * * * *} on Australia/Lord_Howe it answers 2026-04-04T14:00:00Z for every time from then until 14:30Z. Such
 * a step is taken on the zone's local clock instead: the next local time of the expression that falls after the
 * argument, in the earlier of its offsets when it has two. A local time that the zone skips is no time of that step.
 * Every walk so moves forward; one that takes more than its bound of steps throws. Immutable and thread-safe.
 */
final class CronWalk {

    /** The most calls to Spring's {@code next} that one walk makes before it gives up. */
    static final int MAX_STEPS = 100_000;
    /** How far {@link #latestAtOrBefore} looks back. */
    static final Duration LONGEST_LOOK_BACK = Duration.ofDays(800);

    private final CronExpression cron;
    private final ZoneId zone;
    private final int maxSteps;

    CronWalk(CronExpression cron, ZoneId zone) {
        this(cron, zone, MAX_STEPS);
    }

    CronWalk(CronExpression cron, ZoneId zone, int maxSteps) {
        this.cron = cron;
        this.zone = zone;
        this.maxSteps = maxSteps;
    }

    /**
     * The first time of the expression strictly after {@code after}, or empty if it has none.
     *
     * @throws IllegalStateException naming the expression, zone and {@code after} if the bound of steps is exceeded
     */
    Optional<Instant> nextAfter(Instant after) {
        Steps steps = new Steps("time after", after);
        return Optional.ofNullable(next(after.atZone(zone), steps)).map(ZonedDateTime::toInstant);
    }

    /**
     * The latest time of the expression at or before {@code at}, looking back in doubling windows up to
     * {@link #LONGEST_LOOK_BACK}; empty if it has none there.
     *
     * @throws IllegalStateException naming the expression, zone and {@code at} if the bound of steps is exceeded
     */
    Optional<Instant> latestAtOrBefore(Instant at) {
        Steps steps = new Steps("latest time at or before", at);
        ZonedDateTime end = at.atZone(zone);
        for (Duration back = Duration.ofSeconds(1);
                back.compareTo(LONGEST_LOOK_BACK) <= 0;
                back = back.multipliedBy(2)) {
            ZonedDateTime slot = next(end.minus(back), steps);
            if (slot != null && !slot.isAfter(end)) {
                for (ZonedDateTime n = next(slot, steps); n != null && !n.isAfter(end); n = next(n, steps)) {
                    slot = n;
                }
                return Optional.of(slot.toInstant());
            }
        }
        return Optional.empty();
    }

    /** Spring's next time after {@code after}, or the local clock's if Spring's does not move forward; null if none. */
    private ZonedDateTime next(ZonedDateTime after, Steps steps) {
        steps.take();
        ZonedDateTime next = cron.next(after);
        return next == null || next.isAfter(after) ? next : nextOnLocalClock(after, steps);
    }

    private ZonedDateTime nextOnLocalClock(ZonedDateTime after, Steps steps) {
        LocalDateTime local = after.toLocalDateTime();
        while (true) {
            steps.take();
            local = cron.next(local);
            if (local == null) {
                return null;
            }
            ZonedDateTime first = null;
            for (ZoneOffset offset : zone.getRules().getValidOffsets(local)) {
                ZonedDateTime t = ZonedDateTime.ofLocal(local, zone, offset);
                if (t.isAfter(after) && (first == null || t.isBefore(first))) {
                    first = t;
                }
            }
            if (first != null) {
                return first;
            }
        }
    }

    /** The steps one walk has taken. */
    private final class Steps {
        private final String sought;
        private final Instant from;
        private int taken;

        Steps(String sought, Instant from) {
            this.sought = sought;
            this.from = from;
        }

        void take() {
            if (++taken > maxSteps) {
                throw new IllegalStateException("cron \"" + cron + "\" in zone " + zone + ": no " + sought + " " + from
                        + " found in " + maxSteps + " steps");
            }
        }
    }
}
