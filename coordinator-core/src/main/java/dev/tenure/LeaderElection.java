package dev.tenure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Leadership of one named role among many processes, from {@link Tenure#leaderElection}: the role's database lease
 * decides (renewed while held; Valkey, when configured, filters the candidates in front of it), and every leadership
 * carries the lease's epoch, which only ever grows. A leader fences its writes with {@link #fence(Connection)}.
 *
 * <pre>{@code
 * LeaderElection e = tenure.leaderElection("reporter", listener);
 * e.start();
 * ...
 * if (e.isLeader()) {
 *     try (Connection c = dataSource.getConnection()) {
 *         c.setAutoCommit(false);
 *         e.fence(c);            // throws if deposed: the transaction rolls back
 *         write(c);
 *         c.commit();
 *     }
 * }
 * }</pre>
 *
 * <p>Life cycle: {@link #start()} campaigns (and campaigns again after every loss, without restarting the process);
 * {@link #stop()} resigns at once (releases, so a waiting participant takes over within about a second) and stops
 * campaigning for good; {@link #close()} = stop.
 *
 * <p>Thread-safe. The listener's callbacks run on the election's own thread, one at a time and in order; they must not
 * block for long (leadership is not watched meanwhile: {@link #isLeader()} still is), and whatever they throw is
 * logged and ignored. Nothing here returns null.
 */
public interface LeaderElection extends AutoCloseable {

    /** Told when this participant becomes leader and when it stops being one. Runs on the election's thread. */
    interface Listener {
        /** This participant leads from now on, under {@code epoch} (the role's database lease's epoch). */
        void elected(long epoch);

        /**
         * This participant no longer leads: {@code "stopped"}, or why the database lease was lost (a renewal refused:
         * superseded; or no successful renewal before the local validity deadline). Runs before the lease is released,
         * so work that this callback ends (on a graceful stop) ends before a successor is elected.
         */
        void revoked(String reason);
    }

    /** The election's name (the role). */
    String name();

    /**
     * This participant's owner id, what the role's row records as its owner and fencing compares: its label (default
     * this node's name) and a random suffix, unique per instance.
     */
    String owner();

    /**
     * Starts campaigning on the election's thread. Idempotent while running.
     *
     * @throws IllegalStateException if the election was stopped (a stopped election cannot start again: ask for a new one)
     */
    void start();

    /** Resigns ({@code revoked("stopped")}, then the lease is released) and stops campaigning. Idempotent. */
    void stop();

    /** True while this participant leads: its database lease is valid, by the local monotonic deadline. */
    boolean isLeader();

    /** The epoch of this participant's leadership while it leads; empty otherwise. */
    OptionalLong epoch();

    /** The current leader as the database sees it (empty if nobody holds the role); one read. */
    Optional<Holder> currentLeader();

    /**
     * The fence check of this leadership inside the caller's open transaction on {@code connection}, which must be on
     * the database of Tenure's tables. The role's row is locked and its epoch and owner compared. So the transaction
     * commits only if this epoch is still current, and a successor's claim waits for it to end.
     *
     * @throws LeaseLostException    if this participant does not lead now; nothing is sent then
     * @throws StaleOwnerException   if the database says the epoch is no longer current: roll the transaction back and
     *                               stop writing
     * @throws IllegalStateException if {@code connection} is in autocommit mode: there is no transaction to protect
     * @throws SQLException          as the caller's own statements would; the caller handles its transaction
     */
    void fence(Connection connection) throws SQLException;

    @Override
    default void close() {
        stop();
    }
}
