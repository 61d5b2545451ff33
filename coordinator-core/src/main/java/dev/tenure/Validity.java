package dev.tenure;

/**
 * A lease's local validity deadline and the time of its next renewal, on the engine's ticker, and what a successful
 * store call proves about them. A call that failed may still take effect in the store for a while (its outcome is
 * unknown); if its TTL was shorter than the one in force, it may land after a later successful call and shorten the
 * lease there, so until it has surely ended a success proves no more than that shorter TTL, and the deadline is cut to
 * what the failed call would give. With one TTL for the lease's whole life this changes nothing; it matters once
 * {@link dev.tenure.Lease#extend} changes the TTL. Reads are lock-free; changes hold the monitor.
 */
final class Validity {

    private volatile long until;
    private volatile long nextRenewAt;
    /** How early a renewal may go out with others that are due (a tenth of its period). */
    private volatile long window;
    /** Until when a failed call may still land, and the shortest TTL among those that may. */
    private long uncertainUntil;

    private long uncertainTtl = Long.MAX_VALUE;

    Validity(long until, LeaseOptions term, long since) {
        this.until = until;
        this.nextRenewAt = since + term.renewEvery().toNanos();
        this.window = term.renewEvery().toNanos() / 10;
        this.uncertainUntil = since;
    }

    long until() {
        return until;
    }

    long nextRenewAt() {
        return nextRenewAt;
    }

    long window() {
        return window;
    }

    /** The next renewal at {@code at} (a retry after a failure). */
    void renewAt(long at) {
        nextRenewAt = at;
    }

    /** A renewal with {@code term} sent at {@code sentAt} succeeded: the deadline moves forward, never back. */
    synchronized void renewed(long sentAt, LeaseOptions term) {
        long ttl = provenTtl(sentAt, term);
        long candidate = sentAt + ttl - term.safetyMargin().toNanos();
        if (candidate - until > 0) {
            until = candidate;
        }
        schedule(sentAt, term, ttl);
    }

    /** A TTL change to {@code term} sent at {@code sentAt} succeeded: the deadline follows it, earlier or later. */
    synchronized void changed(long sentAt, LeaseOptions term) {
        long ttl = provenTtl(sentAt, term);
        until = sentAt + ttl - term.safetyMargin().toNanos();
        schedule(sentAt, term, ttl);
    }

    /**
     * A call with {@code term} sent at {@code sentAt} failed, and may still take effect in the store until
     * {@code settledAt}: the deadline is cut to what it would give (no change unless its TTL was shorter).
     */
    synchronized void failed(long sentAt, LeaseOptions term, long settledAt) {
        long ttl = term.ttl().toNanos();
        uncertainTtl = sentAt - uncertainUntil < 0 ? Math.min(uncertainTtl, ttl) : ttl;
        uncertainUntil = settledAt - uncertainUntil > 0 ? settledAt : uncertainUntil;
        long cap = sentAt + ttl - term.safetyMargin().toNanos();
        if (cap - until < 0) {
            until = cap;
        }
    }

    /** The TTL a success of a call sent at {@code sentAt} proves: less than its own while a failed call may still land. */
    private long provenTtl(long sentAt, LeaseOptions term) {
        long ttl = term.ttl().toNanos();
        return sentAt - uncertainUntil < 0 ? Math.min(ttl, uncertainTtl) : ttl;
    }

    /** The next renewal: one period on; shorter while a success proves less than the TTL, so the full TTL is back soon. */
    private void schedule(long sentAt, LeaseOptions term, long provenTtl) {
        long every = term.renewEvery().toNanos();
        long period = provenTtl < term.ttl().toNanos() ? Math.min(every, provenTtl / 3) : every;
        nextRenewAt = sentAt + period;
        window = period / 10;
    }
}
