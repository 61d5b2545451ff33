package dev.tenure;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Who holds a job's database lease, or leads an election's role, as the ledger sees it: the owner id, the epoch (the
 * fencing token, an election's term) and when the lease expires by the ledger's clock ({@code null} where the ledger
 * does not say). Returned by {@link Tenure#holder(String)} and {@link LeaderElection#currentLeader()}.
 */
public record Holder(String owner, long epoch, @Nullable Instant leaseExpiresAt) {}
