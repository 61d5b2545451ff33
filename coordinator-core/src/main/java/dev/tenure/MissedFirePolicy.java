package dev.tenure;

import java.time.Duration;
import java.util.Objects;

/**
 * What Tenure's sweeper does with a fire of a {@link ScheduledJob} that was due and has not completed after
 * {@link #grace}: nobody ran it, or its holder died, froze, was force-released or shut down before it completed.
 * A fire that ran and FAILED is accounted for (the failure is its record); one that runs now is left alone.
 *
 * <ul>
 * <li>{@link Action#CATCH_UP} (the default): run it now through the coordinator, so the fire key keeps it exactly once.
 *     Only the newest {@link #maxCatchUps} overdue fires of a job, and none older than {@link #maxAge}, are caught up
 *     (like Quartz's "fire once now" when the bound is 1); the others are recorded MISSED.</li>
 * <li>{@link Action#SKIP}: record it MISSED, and never run it late. A fire recorded MISSED is refused to every node.</li>
 * <li>{@link Action#ALERT_ONLY}: report it as overdue (meter, health, log) and leave it open, so a late run may still
 *     complete it; once it is older than {@link #maxAge} it is recorded MISSED.</li>
 * </ul>
 *
 * @param action      see above
 * @param maxCatchUps how many overdue fires of one job are caught up at most, the newest ones (CATCH_UP only)
 * @param maxAge      fires due longer ago than this are recorded MISSED instead of caught up or left open
 * @param grace       how long after its fire time a fire may still be starting before it counts as overdue
 */
public record MissedFirePolicy(Action action, int maxCatchUps, Duration maxAge, Duration grace) {

    /** Default {@link #maxCatchUps}. */
    public static final int DEFAULT_MAX_CATCH_UPS = 10;
    /** Default {@link #maxAge}. */
    public static final Duration DEFAULT_MAX_AGE = Duration.ofHours(1);
    /** Default {@link #grace}. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(5);

    /** What to do with an overdue fire. */
    public enum Action {
        CATCH_UP,
        SKIP,
        ALERT_ONLY
    }

    public MissedFirePolicy {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(maxAge, "maxAge");
        Objects.requireNonNull(grace, "grace");
        if (maxCatchUps < 0) {
            throw new IllegalArgumentException("maxCatchUps must be >= 0 (got " + maxCatchUps + ")");
        }
        if (grace.isNegative() || grace.toMillis() < 1) {
            throw new IllegalArgumentException("grace must be at least 1 ms (got " + grace + ")");
        }
        if (maxAge.compareTo(grace) <= 0) {
            throw new IllegalArgumentException("maxAge (" + maxAge + ") must be longer than grace (" + grace + ")");
        }
    }

    /** Catch up overdue fires: the default policy (10 fires, 1 hour, 5 s of grace). */
    public static MissedFirePolicy catchUp() {
        return new MissedFirePolicy(Action.CATCH_UP, DEFAULT_MAX_CATCH_UPS, DEFAULT_MAX_AGE, DEFAULT_GRACE);
    }

    /** Record overdue fires MISSED and never run them late. */
    public static MissedFirePolicy skip() {
        return catchUp().withAction(Action.SKIP);
    }

    /** Report overdue fires and leave them open until {@link #maxAge}. */
    public static MissedFirePolicy alertOnly() {
        return catchUp().withAction(Action.ALERT_ONLY);
    }

    public MissedFirePolicy withAction(Action a) {
        return new MissedFirePolicy(a, maxCatchUps, maxAge, grace);
    }

    public MissedFirePolicy withMaxCatchUps(int max) {
        return new MissedFirePolicy(action, max, maxAge, grace);
    }

    public MissedFirePolicy withMaxAge(Duration age) {
        return new MissedFirePolicy(action, maxCatchUps, age, grace);
    }

    public MissedFirePolicy withGrace(Duration g) {
        return new MissedFirePolicy(action, maxCatchUps, maxAge, g);
    }
}
