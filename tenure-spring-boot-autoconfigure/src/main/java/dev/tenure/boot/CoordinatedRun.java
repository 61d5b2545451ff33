package dev.tenure.boot;

import dev.tenure.JobContext;

import java.util.Optional;

/**
 * The run of the {@link Coordinated} method executing on this thread: its epoch, lease state, fence check and the
 * completion of its fire ({@link JobContext#completeInTransaction}). {@code @Scheduled} methods take no arguments, so
 * the run is bound to the thread for the duration of the call.
 */
public final class CoordinatedRun {

    private static final ThreadLocal<JobContext> CURRENT = new ThreadLocal<>();

    private CoordinatedRun() {
    }

    /**
     * The run of the {@code @Coordinated} method on this thread.
     *
     * @throws IllegalStateException outside a {@code @Coordinated} method (or on another thread than the method's)
     */
    public static JobContext current() {
        JobContext run = CURRENT.get();
        if (run == null) {
            throw new IllegalStateException("no coordinated run on this thread: CoordinatedRun.current() works inside a "
                    + "@Coordinated method, on the thread that runs it (pass the JobContext on to other threads)");
        }
        return run;
    }

    /** The run of the {@code @Coordinated} method on this thread, if any. */
    public static Optional<JobContext> find() {
        return Optional.ofNullable(CURRENT.get());
    }

    static JobContext bind(JobContext run) {
        JobContext previous = CURRENT.get();
        CURRENT.set(run);
        return previous;
    }

    static void restore(JobContext previous) {
        if (previous == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(previous);
        }
    }
}
