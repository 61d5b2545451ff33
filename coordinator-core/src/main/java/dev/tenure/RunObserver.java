package dev.tenure;

import org.jspecify.annotations.Nullable;

/**
 * How the coordinator tells an observer about its runs ({@link Tenure.Builder#observationRegistry}): no
 * Micrometer type here, so core loads without Micrometer, and {@link #NONE} costs a run nothing.
 */
interface RunObserver {

    /** Observes nothing. */
    RunObserver NONE = (jobKey, fireKey, integration) -> Run.NONE;

    /** A run's claim starts on the calling thread (whose current observation is the run's parent). */
    Run start(String jobKey, String fireKey, String integration);

    /** A thread's scope of an observation; closing it on another thread does nothing. */
    interface Scope extends AutoCloseable {
        Scope NONE = () -> {};

        @Override
        void close();
    }

    /** One run's observations. Never throws. */
    interface Run {
        Run NONE = new Run() {};

        /** The claim succeeded (on the thread that started it): the claim ends, the work begins. */
        default void claimed(long epoch, String owner, boolean fallback) {}

        /** The run was not claimed (on the thread that started it): the claim and the run end. */
        default void notClaimed(RunOutcome<?> outcome) {}

        /** The claim threw (on the thread that started it): the claim and the run end with {@code fault}. */
        default void failed(Throwable fault) {}

        /** Makes the work's observation current on the calling thread until the scope closes. */
        default Scope openWork() {
            return Scope.NONE;
        }

        /** The work ended ({@code error} null: it succeeded) and the outcome is being recorded. Idempotent. */
        default void completing(@Nullable Throwable error) {}

        /** The outcome is recorded (or the run was abandoned): every observation of the run ends. */
        default void ended(RunOutcome<?> outcome) {}

        /** The run's trace id, when a tracer made one; else null. */
        default @Nullable String traceId() {
            return null;
        }
    }
}
