package dev.tenure.spi;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The run records of the job coordinator: one row per (job key, fire key), written only under the current
 * epoch. The database module implements it; core stays free of JDBC drivers ({@code java.sql} is the JDK's).
 * Implementations are thread-safe and raise {@link dev.tenure.LeaseStoreUnavailableException} (or a subclass)
 * on faults, within bounded time.
 */
public interface RunLedger {

    /** What {@link #startRun} found. */
    sealed interface FireStart {
        /** Run it now; {@code runId} identifies the run row. */
        record Started(String runId) implements FireStart {
        }

        /** This fire already completed: do not run it again. */
        record AlreadyCompleted(String runId, String owner, long epoch) implements FireStart {
        }

        /** This fire is running under a live lease of its owner. */
        record InProgress(String runId, String owner, long epoch) implements FireStart {
        }
    }

    /** Records that {@code owner} starts {@code fireKey} of {@code jobKey} under {@code epoch}. */
    FireStart startRun(String jobKey, String fireKey, long epoch, String owner);

    /**
     * Records the outcome, only if {@code epoch} is still the job's current epoch. False = fenced out: the
     * outcome was not accepted (the run is marked rejected as stale). It leaves the job's lease to its holder, who
     * releases it right after (so that the holder's lease handle ends RELEASED, not LOST).
     */
    boolean finish(String jobKey, long epoch, String runId, boolean succeeded, String error);

    /**
     * The fence check for the work's own transaction on {@code connection}: locks the job's row and throws a
     * {@link dev.tenure.TenureException} subclass if {@code epoch} is no longer current, so the caller's
     * transaction rolls back. A newer claim waits for this lock until the caller's transaction ends.
     */
    void fence(Connection connection, String jobKey, long epoch) throws SQLException;

    /** Who holds the job's database lease now, as the database sees it (empty if nobody). Default: unknown. */
    default java.util.Optional<dev.tenure.LeaderElection.Leader> holder(String jobKey) {
        return java.util.Optional.empty();
    }
}
