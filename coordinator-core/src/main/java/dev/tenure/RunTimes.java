package dev.tenure;

import dev.tenure.metrics.RunMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The run metrics of one {@link Tenure}, passed on to the user's sink, that also keep how long each job's last run took
 * here and when a regular (not caught-up) run of it last ended here, for the sweeper to start catch-ups in the gaps
 * between regular fires. Every method of {@link RunMetrics} is
 * passed on ({@code RunTimesTest} checks that none is left to its default). Thread-safe.
 */
final class RunTimes implements RunMetrics {

    private final RunMetrics sink;
    private final Map<String, Duration> last = new ConcurrentHashMap<>();
    private final Map<String, Long> lastRegular = new ConcurrentHashMap<>();
    /** Set on the thread that runs a catch-up, while it runs: its runs are not regular fires. */
    private static final ThreadLocal<Boolean> CATCHING_UP = new ThreadLocal<>();

    RunTimes(RunMetrics sink) {
        this.sink = sink;
    }

    /** How long the last run of {@code jobKey} executed here took; null if none did yet. */
    @Nullable
    Duration last(String jobKey) {
        return last.get(jobKey);
    }

    /** When (nanoTime) a regular run of {@code jobKey} last ended here; null if none did. */
    @Nullable
    Long lastRegular(String jobKey) {
        return lastRegular.get(jobKey);
    }

    /** Runs {@code catchUp} on this thread as a catch-up: the runs it makes do not count as regular fires. */
    static void asCatchUp(ScheduledJob.CatchUp catchUp, String fireKey) throws Exception {
        CATCHING_UP.set(Boolean.TRUE);
        try {
            catchUp.run(fireKey);
        } finally {
            CATCHING_UP.remove();
        }
    }

    @Override
    public void runTook(String jobKey, Duration ran) {
        last.put(jobKey, ran);
        if (CATCHING_UP.get() == null) {
            lastRegular.put(jobKey, System.nanoTime());
        }
        sink.runTook(jobKey, ran);
    }

    @Override
    public void runEnded(String jobKey, RunOutcome.Status status, int fenceChecks) {
        sink.runEnded(jobKey, status, fenceChecks);
    }

    @Override
    public void fenceRejected(String jobKey) {
        sink.fenceRejected(jobKey);
    }

    @Override
    public void fireMissed(String jobKey, String reason) {
        sink.fireMissed(jobKey, reason);
    }

    @Override
    public void firesMissed(String jobKey, String reason, long count) {
        sink.firesMissed(jobKey, reason, count);
    }

    @Override
    public void firesOverdue(String jobKey, int count) {
        sink.firesOverdue(jobKey, count);
    }

    @Override
    public void schedulesUnswept(int count) {
        sink.schedulesUnswept(count);
    }

    @Override
    public void notSweeping() {
        sink.notSweeping();
    }

    @Override
    public void clockSkew(Duration skew) {
        sink.clockSkew(skew);
    }
}
