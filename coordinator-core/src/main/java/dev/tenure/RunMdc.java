package dev.tenure;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The SLF4J MDC keys of a coordinated run: every log line written inside a run, the work's and Tenure's own, carries
 * the job, the fire, the epoch, the owner and the node. A scope opened for a run also makes it the thread's
 * {@link JobContext#current()}. For an {@link ActiveRun} it also makes the run's work observation current on the thread
 * ({@link Tenure.Builder#observationRegistry}), so a tracer's own MDC keys and the work's observations follow
 * it. {@link JobCoordinator#run} and {@link JobCoordinator#runInTransaction}
 * open a scope around the work and the recording of its outcome; the Quartz, Spring Batch and Spring Boot integrations
 * do the same around a fire. Closing the scope puts back what the thread had under these keys before (usually
 * nothing), so nothing leaks to the next task on a pooled thread, an enclosing run's keys come back after a nested
 * run, and the application's own MDC keys are never touched.
 *
 * <p>A scope belongs to the thread that opened it: {@link Scope#close()} on another thread does nothing. Thread-safe.
 */
public final class RunMdc {

    /** The job key. */
    public static final String JOB = "tenure.job";
    /** The fire key. */
    public static final String FIRE = "tenure.fire";
    /** The run's epoch (its fencing token), in decimal. */
    public static final String EPOCH = "tenure.epoch";
    /** The owner id of the run's database lease. */
    public static final String OWNER = "tenure.owner";
    /** This node's name ({@link Tenure#nodeName()}); absent when the coordinator has none. */
    public static final String NODE = "tenure.node";
    /** Every key a scope sets. */
    public static final List<String> KEYS = List.of(JOB, FIRE, EPOCH, OWNER, NODE);

    private RunMdc() {}

    /** Puts the keys of {@code run} on the calling thread's MDC until the scope is closed. */
    public static Scope open(JobContext run) {
        if (run instanceof ActiveRun a) {
            return new Scope(
                    values(a.jobKey(), a.fireKey(), a.epoch(), a.owner(), a.node()),
                    a.observation().openWork(),
                    run);
        }
        return new Scope(
                values(run.jobKey(), run.fireKey(), run.epoch(), run.owner(), null), RunObserver.Scope.NONE, run);
    }

    /** Puts these values on the calling thread's MDC until the scope is closed; a null value removes its key. */
    public static Scope open(String jobKey, String fireKey, long epoch, String owner) {
        return open(jobKey, fireKey, epoch, owner, null);
    }

    /** As {@link #open(String, String, long, String)}, with the node's name ({@code null}: no {@link #NODE} key). */
    public static Scope open(String jobKey, String fireKey, long epoch, String owner, @Nullable String node) {
        return new Scope(values(jobKey, fireKey, epoch, owner, node), RunObserver.Scope.NONE, null);
    }

    /** The values of {@link #KEYS}, in their order: the one place that says what a run's log lines carry. */
    private static @Nullable String[] values(
            String jobKey, String fireKey, long epoch, String owner, @Nullable String node) {
        return new String[] {jobKey, fireKey, Long.toString(epoch), owner, node};
    }

    /** The run's keys on one thread's MDC; {@link #close()} restores what was there before. Not thread-safe. */
    public static final class Scope implements AutoCloseable {

        private final Thread thread = Thread.currentThread();
        private final @Nullable String[] previous = new String[KEYS.size()];
        private final RunObserver.Scope observed;
        private final boolean binds;
        private final @Nullable JobContext previousRun;
        private boolean closed;

        /** With a {@code run}, also makes it {@link JobContext#current()} on this thread until closed. */
        private Scope(@Nullable String[] values, RunObserver.Scope observed, @Nullable JobContext run) {
            for (int i = 0; i < previous.length; i++) {
                previous[i] = MDC.get(KEYS.get(i));
                put(KEYS.get(i), values[i]);
            }
            this.observed = observed;
            this.binds = run != null;
            this.previousRun = run != null ? CurrentRun.bind(run) : null;
        }

        /** Restores the keys as they were before the scope; idempotent; does nothing on another thread. */
        @Override
        public void close() {
            if (closed || Thread.currentThread() != thread) {
                return;
            }
            closed = true;
            observed.close();
            if (binds) {
                CurrentRun.restore(previousRun);
            }
            for (int i = 0; i < previous.length; i++) {
                put(KEYS.get(i), previous[i]);
            }
        }

        private static void put(String key, @Nullable String value) {
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        }
    }
}
