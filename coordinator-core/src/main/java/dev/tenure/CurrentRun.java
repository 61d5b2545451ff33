package dev.tenure;

import org.jspecify.annotations.Nullable;

/** The run bound to each thread while its fire's work runs there ({@link JobContext#current()}); see {@link RunMdc}. */
final class CurrentRun {

    private static final ThreadLocal<JobContext> RUN = new ThreadLocal<>();

    private CurrentRun() {}

    static @Nullable JobContext get() {
        return RUN.get();
    }

    /** Binds {@code run} to the calling thread; returns what was bound before (an enclosing run, or null). */
    static @Nullable JobContext bind(JobContext run) {
        JobContext previous = RUN.get();
        RUN.set(run);
        return previous;
    }

    static void restore(@Nullable JobContext previous) {
        if (previous == null) {
            RUN.remove();
        } else {
            RUN.set(previous);
        }
    }
}
