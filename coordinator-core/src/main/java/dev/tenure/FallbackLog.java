package dev.tenure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a coordinator says about Valkey in its log and meters, one outage at a time. In
 * {@link JobCoordinator.Mode#VALKEY_WITH_DATABASE_FALLBACK} the first failure (of a run's acquire or of a probe) starts
 * an outage: one WARN with the cause, and {@link #outages()} counts it. The breaker's retries inside it are logged at
 * DEBUG only, however many there are. The first call Valkey answers ends the outage with one INFO that gives its
 * duration and the retries that failed. In the other modes there is no fallback: a WARN whenever Valkey fails, at most
 * once per {@link #WARN_EVERY}. The state is a few atomics updated on the paths that
 * fail or answer: no thread, no timer. Thread-safe.
 */
final class FallbackLog {

    /** The shortest time between two WARN lines about an unreachable Valkey outside the fallback mode. */
    static final Duration WARN_EVERY = Duration.ofMinutes(1);

    private static final long NEVER = Long.MIN_VALUE;
    private static final Logger LOG = LoggerFactory.getLogger(JobCoordinator.class);

    private final Ticker ticker;
    private final JobCoordinator.Mode mode;
    private final AtomicLong lastWarn = new AtomicLong(NEVER);
    private final AtomicLong outageSince = new AtomicLong(NEVER);
    private final AtomicLong outages = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    FallbackLog(Ticker ticker, JobCoordinator.Mode mode) {
        this.ticker = ticker;
        this.mode = mode;
    }

    /**
     * Valkey refused Tenure or could not be reached. With the fallback: the first failure of an outage starts it (one
     * WARN, counted); later ones are DEBUG lines. Other modes: a WARN, unless one went out less than a minute ago.
     *
     * @param retryEvery how long the breaker waits before it tries Valkey again, for the WARN
     */
    void unreachable(String problem, Duration retryEvery) {
        long now = ticker.nanoTime();
        if (mode != JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK) {
            long last = lastWarn.get();
            if ((last == NEVER || now - last >= WARN_EVERY.toNanos()) && lastWarn.compareAndSet(last, now)) {
                LOG.warn(
                        "{}; {}. Said at most once a minute while it lasts",
                        problem,
                        mode == JobCoordinator.Mode.VALKEY
                                ? "coordinated runs are refused: the mode is VALKEY (fail closed)"
                                : "coordinated runs do not use Valkey (database mode)");
            } else {
                LOG.debug("{} (still)", problem);
            }
            return;
        }
        if (outageSince.compareAndSet(NEVER, now)) {
            outages.incrementAndGet();
            failures.set(1);
            LOG.warn(
                    "Valkey fallback started: {}; coordinated runs use the database alone, which decides as always. "
                            + "Valkey is tried again every {} ms; one line when it answers again",
                    problem,
                    retryEvery.toMillis());
        } else {
            failures.incrementAndGet();
            LOG.debug("Valkey still unreachable, the fallback goes on: {}", problem);
        }
    }

    /** A Valkey call succeeded: ends the outage, with one INFO line, if one was on. Cheap when none is. */
    void valkeyAnswered() {
        long since = outageSince.get();
        if (since != NEVER && outageSince.compareAndSet(since, NEVER)) {
            LOG.info(
                    "Valkey fallback ended after {} ms ({} failed call(s) meanwhile): Valkey answers again, "
                            + "coordinated runs use it again",
                    Duration.ofNanos(ticker.nanoTime() - since).toMillis(),
                    failures.get());
        }
    }

    /** True from the first failure of an outage to the first call Valkey answers after it. */
    boolean inOutage() {
        return outageSince.get() != NEVER;
    }

    /** The outages so far: each counted once, however many retries failed inside it. */
    long outages() {
        return outages.get();
    }
}
