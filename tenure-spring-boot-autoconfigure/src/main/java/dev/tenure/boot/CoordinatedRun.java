package dev.tenure.boot;

import dev.tenure.JobContext;
import java.util.Optional;

/**
 * The run of the {@link Coordinated} method executing on this thread.
 *
 * @deprecated since 0.1.0, for removal in the release after it: use {@link JobContext#current()} and
 *     {@link JobContext#find()}, which reach the fire's run the same way in a {@code @Coordinated} method, a Quartz
 *     job, a guarded Spring Batch job and work given to {@code JobCoordinator.run}. Both methods here delegate to
 *     them. The migration is one import and one name: {@code CoordinatedRun.current()} becomes
 *     {@code JobContext.current()} (CHANGELOG.md, "Deprecated").
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class CoordinatedRun {

    private CoordinatedRun() {}

    /**
     * The run of the {@code @Coordinated} method on this thread.
     *
     * @return the fire's run, never null
     * @throws IllegalStateException on a thread that runs no coordinated fire now
     * @deprecated use {@link JobContext#current()}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static JobContext current() {
        return JobContext.current();
    }

    /**
     * The run of the {@code @Coordinated} method on this thread, if any.
     *
     * @deprecated use {@link JobContext#find()}
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    public static Optional<JobContext> find() {
        return JobContext.find();
    }
}
