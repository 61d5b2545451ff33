package dev.tenure.db;

import java.time.Instant;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** One row of {@code job_run} (times by the database clock; {@code finishedAt} and {@code error} may be null). */
record RunRecord(
        UUID runId,
        String jobKey,
        String fireKey,
        long epoch,
        String owner,
        RunStatus status,
        int attempt,
        Instant startedAt,
        @Nullable Instant finishedAt,
        @Nullable String error) {}
