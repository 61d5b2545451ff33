package dev.tenure;

import org.slf4j.MDC;

import java.util.List;

/**
 * The SLF4J MDC keys of a coordinated run: every log line written inside a run, the work's and Tenure's own, carries
 * the job, the fire, the epoch and the owner. {@link JobCoordinator#run} and {@link JobCoordinator#runInTransaction}
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
    /** Every key a scope sets. */
    public static final List<String> KEYS = List.of(JOB, FIRE, EPOCH, OWNER);

    private RunMdc() {
    }

    /** Puts the keys of {@code run} on the calling thread's MDC until the scope is closed. */
    public static Scope open(JobContext run) {
        return open(run.jobKey(), run.fireKey(), run.epoch(), run.owner());
    }

    /** Puts these values on the calling thread's MDC until the scope is closed; a null value removes its key. */
    public static Scope open(String jobKey, String fireKey, long epoch, String owner) {
        return new Scope(values(jobKey, fireKey, epoch, owner));
    }

    /**
     * The values of {@link #KEYS}, in their order: the one place that says what a run's log lines carry. A node name
     * ({@code tenure.node}) goes here, with a {@code NODE} constant added to {@link #KEYS}, once nodes have names.
     */
    private static String[] values(String jobKey, String fireKey, long epoch, String owner) {
        return new String[] {jobKey, fireKey, Long.toString(epoch), owner};
    }

    /** The run's keys on one thread's MDC; {@link #close()} restores what was there before. Not thread-safe. */
    public static final class Scope implements AutoCloseable {

        private final Thread thread = Thread.currentThread();
        private final String[] previous = new String[KEYS.size()];
        private boolean closed;

        private Scope(String[] values) {
            for (int i = 0; i < previous.length; i++) {
                previous[i] = MDC.get(KEYS.get(i));
                put(KEYS.get(i), values[i]);
            }
        }

        /** Restores the keys as they were before the scope; idempotent; does nothing on another thread. */
        @Override
        public void close() {
            if (closed || Thread.currentThread() != thread) {
                return;
            }
            closed = true;
            for (int i = 0; i < previous.length; i++) {
                put(KEYS.get(i), previous[i]);
            }
        }

        private static void put(String key, String value) {
            if (value == null) {
                MDC.remove(key);
            } else {
                MDC.put(key, value);
            }
        }
    }
}
