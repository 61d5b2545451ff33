package dev.tenure.db;

import java.time.Duration;
import java.time.Instant;

/**
 * Who holds a job, as the database sees it: owner, epoch and database-clock times; {@code remaining} is computed by
 * the database ({@code lease_expires_at - clock_timestamp()}).
 */
record JobHolder(
        String jobKey, String owner, long epoch, Instant claimedAt, Instant leaseExpiresAt, Duration remaining) {}
