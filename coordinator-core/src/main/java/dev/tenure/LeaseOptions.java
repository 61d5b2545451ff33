package dev.tenure;

import java.time.Duration;
import java.util.Objects;

/**
 * How one lease is held. Immutable; validated on construction.
 *
 * @param ttl               how long the store keeps the lease without a renewal (default 30 s)
 * @param renewEvery        how often the watchdog renews it (default {@code ttl / 3}); must be shorter than the ttl
 * @param safetyMargin      subtracted from the local validity deadline so the holder stops trusting the lease
 *                          before the store can expire it (default 1% of the ttl + 2 ms, for clock drift)
 * @param renew             whether the watchdog renews the lease at all (default true); without renewal it
 *                          simply expires after {@code ttl}
 * @param fencingToken      whether to take a fencing token with the lease (default false)
 * @param interruptOnLoss   whether to interrupt the acquiring thread when the lease is lost (default false)
 */
public record LeaseOptions(
        Duration ttl,
        Duration renewEvery,
        Duration safetyMargin,
        boolean renew,
        boolean fencingToken,
        boolean interruptOnLoss) {

    /** The default TTL, 30 s. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

    public LeaseOptions {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("ttl must be positive (got " + ttl + ")");
        }
        if (ttl.toMillis() < 10) {
            throw new IllegalArgumentException("ttl must be at least 10 ms (got " + ttl + ")");
        }
        renewEvery = renewEvery == null ? ttl.dividedBy(3) : renewEvery;
        if (renewEvery.isNegative() || renewEvery.isZero()) {
            throw new IllegalArgumentException("renewEvery must be positive (got " + renewEvery + ")");
        }
        if (renewEvery.compareTo(ttl) >= 0) {
            throw new IllegalArgumentException(
                    "renewEvery (" + renewEvery + ") must be shorter than ttl (" + ttl + ")");
        }
        safetyMargin = safetyMargin == null ? defaultMargin(ttl) : safetyMargin;
        if (safetyMargin.isNegative() || safetyMargin.compareTo(ttl) >= 0) {
            throw new IllegalArgumentException(
                    "safetyMargin must be >= 0 and shorter than ttl (got " + safetyMargin + ")");
        }
    }

    /** Defaults: 30 s TTL, renewed every 10 s, no fencing token, no interrupt. */
    public static LeaseOptions ofDefaults() {
        return ofTtl(DEFAULT_TTL);
    }

    /** Defaults with the given TTL (renewal every ttl/3). */
    @SuppressWarnings("NullAway") // null renewEvery and safetyMargin: the constructor derives them from the TTL
    public static LeaseOptions ofTtl(Duration ttl) {
        return new LeaseOptions(ttl, null, null, true, false, false);
    }

    private static Duration defaultMargin(Duration ttl) {
        return ttl.dividedBy(100).plusMillis(2);
    }

    /**
     * These options with another TTL (also what {@link Lease#extend} holds a lease to). What was derived from the TTL
     * follows it: a {@code renewEvery} of ttl/3 becomes newTtl/3, and the default safety margin is recomputed. What was
     * set explicitly (any other value) stays.
     *
     * @throws IllegalArgumentException as the constructor, e.g. if an explicit renewEvery or safetyMargin is not
     *                                  shorter than {@code newTtl}
     */
    @SuppressWarnings("NullAway") // null renewEvery or safetyMargin: the constructor derives it from newTtl
    public LeaseOptions withTtl(Duration newTtl) {
        boolean derivedEvery = renewEvery.equals(ttl.dividedBy(3));
        boolean derivedMargin = safetyMargin.equals(defaultMargin(ttl));
        return new LeaseOptions(
                newTtl,
                derivedEvery ? null : renewEvery,
                derivedMargin ? null : safetyMargin,
                renew,
                fencingToken,
                interruptOnLoss);
    }

    public LeaseOptions withRenewEvery(Duration every) {
        return new LeaseOptions(ttl, every, safetyMargin, renew, fencingToken, interruptOnLoss);
    }

    public LeaseOptions withSafetyMargin(Duration margin) {
        return new LeaseOptions(ttl, renewEvery, margin, renew, fencingToken, interruptOnLoss);
    }

    public LeaseOptions withRenewal(boolean on) {
        return new LeaseOptions(ttl, renewEvery, safetyMargin, on, fencingToken, interruptOnLoss);
    }

    public LeaseOptions withFencingToken(boolean on) {
        return new LeaseOptions(ttl, renewEvery, safetyMargin, renew, on, interruptOnLoss);
    }

    public LeaseOptions withInterruptOnLoss(boolean on) {
        return new LeaseOptions(ttl, renewEvery, safetyMargin, renew, fencingToken, on);
    }
}
