package dev.tenure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a coordinator says about Valkey in its log: one INFO line when the fallback starts (runs go to the database
 * alone) and one when it ends (Valkey answers again), each with the reason; and a WARN whenever Valkey refuses Tenure
 * or cannot be reached, at most once per {@link #WARN_EVERY} however often it fails. The limit is a timestamp checked
 * on the paths that fail: no thread, no timer. Thread-safe.
 */
final class FallbackLog {

    /** The shortest time between two WARN lines about an unreachable Valkey. */
    static final Duration WARN_EVERY = Duration.ofMinutes(1);

    private static final long NEVER = Long.MIN_VALUE;
    private static final Logger LOG = LoggerFactory.getLogger(JobCoordinator.class);

    private final Ticker ticker;
    private final JobCoordinator.Mode mode;
    private final AtomicLong lastWarn = new AtomicLong(NEVER);
    private final AtomicLong fallbackSince = new AtomicLong(NEVER);

    FallbackLog(Ticker ticker, JobCoordinator.Mode mode) {
        this.ticker = ticker;
        this.mode = mode;
    }

    /** Valkey refused Tenure or could not be reached: a WARN, unless one went out less than a minute ago. */
    void unreachable(String problem) {
        long now = ticker.nanoTime();
        long last = lastWarn.get();
        if ((last == NEVER || now - last >= WARN_EVERY.toNanos()) && lastWarn.compareAndSet(last, now)) {
            LOG.warn(
                    "{}; {} (said at most once a minute while it lasts)",
                    problem,
                    mode == JobCoordinator.Mode.VALKEY
                            ? "coordinated runs are refused: the mode is VALKEY (fail closed)"
                            : "coordinated runs use the database alone, which decides as always");
        }
    }

    /** Runs now go to the database alone because of {@code reason}: one INFO line, until {@link #valkeyAnswered}. */
    void fallbackStarted(String reason, Duration retryEvery) {
        if (fallbackSince.compareAndSet(NEVER, ticker.nanoTime())) {
            LOG.info(
                    "Valkey fallback started: {}; coordinated runs use the database alone, Valkey is tried again every "
                            + "{} ms",
                    reason,
                    retryEvery.toMillis());
        }
    }

    /** A Valkey call succeeded: ends the fallback, with one INFO line, if one was on. Cheap when none is. */
    void valkeyAnswered() {
        long since = fallbackSince.get();
        if (since != NEVER && fallbackSince.compareAndSet(since, NEVER)) {
            LOG.info(
                    "Valkey fallback ended after {} ms: Valkey answers again, coordinated runs use it again",
                    Duration.ofNanos(ticker.nanoTime() - since).toMillis());
        }
    }
}
