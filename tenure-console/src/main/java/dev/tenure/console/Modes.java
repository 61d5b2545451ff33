package dev.tenure.console;

import java.util.Objects;

/**
 * How a job is held, as far as the console can know: the database row says who holds the database lease; the Valkey
 * lease key (when the console was given Valkey) says whether the holder also holds the Valkey lease. A holder with a
 * database lease and no Valkey lease runs through the database alone: the fallback while Valkey was unreachable, or
 * the DATABASE mode. Without Valkey the mode cannot be known from the tables (runs do not record it).
 */
final class Modes {

    private Modes() {}

    /** A short label; {@code lease} is null when Valkey has no lease for the job, {@code valkeyGiven} false without Valkey. */
    static String of(Views.Job job, ValkeyLeases.Lease lease, boolean valkeyGiven) {
        if (!valkeyGiven) {
            return job.held() ? "database lease (Valkey not given)" : "";
        }
        if (lease != null && lease.error() != null) {
            return "Valkey unreadable";
        }
        if (!job.held()) {
            return lease == null ? "" : "Valkey lease only";
        }
        if (lease == null) {
            return "database only (fallback)";
        }
        if (lease.owner() != null && lease.owner().startsWith("q:")) {
            return "Valkey: " + Nodes.of(lease.owner());
        }
        return Objects.equals(Nodes.of(lease.owner()), Nodes.of(job.owner()))
                ? "Valkey + database"
                : "Valkey held by " + Nodes.of(lease.owner());
    }
}
