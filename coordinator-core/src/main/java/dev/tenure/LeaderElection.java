package dev.tenure;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Leadership of one named role among many processes, on a lease that is renewed while held and whose every
 * term carries an epoch (fencing token) that only ever grows. Implementations are thread-safe; callbacks run
 * on the election's own thread and must not block for long.
 *
 * <p>Life cycle: {@link #start()} campaigns (and re-campaigns after every loss, without restarting the
 * process); {@link #stop()} resigns gracefully (releases, so a successor can take over at once) and stops
 * campaigning; {@link #close()} = stop.
 */
public interface LeaderElection extends AutoCloseable {

    /** Called when this process becomes leader ({@code epoch} = the term's fencing token) and when it stops being one. */
    interface Listener {
        void elected(long epoch);

        void revoked(String reason);
    }

    /** Who leads, as the store sees it. */
    record Leader(String owner, long epoch, Instant leaseExpiresAt) {
    }

    /** The election's name (the role). */
    String name();

    /** This participant's id (unique per process and election). */
    String participantId();

    void start();

    /** Resigns (releasing the lease if held) and stops campaigning. Idempotent. */
    void stop();

    /** True while this process holds a valid leadership lease. */
    boolean isLeader();

    /** The current term's epoch while leader; empty otherwise. */
    OptionalLong term();

    /** The current leader as the store sees it (empty if nobody holds the role). */
    Optional<Leader> currentLeader();

    @Override
    default void close() {
        stop();
    }
}
