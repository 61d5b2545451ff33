package dev.tenure.db;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** The answer of {@link JdbcRunLedger#start}: whether this fire runs now, ran already, or runs elsewhere. */
sealed interface RunStart {

    /**
     * Run it: a new {@code RUNNING} row (or an earlier FAILED, ABANDONED or REJECTED_STALE row taken over, then
     * {@code attempt > 1} and {@code previousStatus} says what it was).
     */
    record Started(UUID runId, int attempt, @Nullable RunStatus previousStatus) implements RunStart {}

    /** The fire already COMPLETED (or was recorded MISSED: {@code missed}): do not run it again; report the earlier run. */
    record AlreadyDone(
            UUID runId, String owner, long epoch, @Nullable Instant finishedAt, boolean missed) implements RunStart {}

    /** The fire is RUNNING under the caller's own epoch (another thread of the same holder started it). */
    record InProgress(UUID runId, String owner, long epoch, Instant startedAt) implements RunStart {}
}
