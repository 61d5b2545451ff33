package dev.tenure.db;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Who holds a job, as the database sees it: owner, epoch and database-clock times; {@code remaining} is computed by
 * the database ({@code lease_expires_at - clock_timestamp()}).
 */
record JobHolder(
        String jobKey,
        @Nullable String owner,
        long epoch,
        @Nullable Instant claimedAt,
        @Nullable Instant leaseExpiresAt,
        Duration remaining) {}
