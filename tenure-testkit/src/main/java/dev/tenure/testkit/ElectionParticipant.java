package dev.tenure.testkit;

import dev.tenure.LeaderElection;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;

/**
 * One participant of a {@link LeaderElectionContract} test: its own {@link Tenure} (as a process would have), its
 * election of the role, and the callbacks it received, as {@code "elected <epoch>"} and {@code "revoked <reason>"}.
 * Thread-safe; {@link #close()} stops the election and closes the Tenure.
 */
public final class ElectionParticipant implements AutoCloseable {

    /** What the listener does besides recording. */
    public enum Reaction {
        /** Nothing. */
        NONE,
        /** Throws from both callbacks (an {@link IllegalStateException}, then an {@link AssertionError}). */
        THROW,
        /** Stops its own election from {@code elected}, on the election's thread. */
        STOP_WHEN_ELECTED
    }

    private final Tenure tenure;
    private final LeaderElection election;
    private final List<String> events = new CopyOnWriteArrayList<>();

    ElectionParticipant(Tenure tenure, String role, String label, LeaseOptions options, Reaction reaction) {
        this.tenure = tenure;
        LeaderElection[] self = new LeaderElection[1];
        this.election = tenure.leaderElection(role, options, label, new LeaderElection.Listener() {
            @Override
            public void elected(long epoch) {
                events.add("elected " + epoch);
                if (reaction == Reaction.THROW) {
                    throw new IllegalStateException("listener failure (test)");
                }
                if (reaction == Reaction.STOP_WHEN_ELECTED) {
                    self[0].stop();
                }
            }

            @Override
            public void revoked(String reason) {
                events.add("revoked " + reason);
                if (reaction == Reaction.THROW) {
                    throw new AssertionError("listener failure (test)");
                }
            }
        });
        self[0] = election;
    }

    /** The first of {@code participants} that leads within {@code timeout}. */
    public static ElectionParticipant awaitLeader(List<ElectionParticipant> participants, Duration timeout) {
        return Awaitility.await("a leader among " + participants)
                .atMost(timeout)
                .pollInterval(Duration.ofMillis(5))
                .until(
                        () -> participants.stream()
                                .filter(p -> p.election.isLeader())
                                .findFirst(),
                        Optional::isPresent)
                .orElseThrow();
    }

    public LeaderElection election() {
        return election;
    }

    public Tenure tenure() {
        return tenure;
    }

    /** The callbacks so far, in order. */
    public List<String> events() {
        return List.copyOf(events);
    }

    @Override
    public void close() {
        election.stop();
        tenure.close();
    }

    @Override
    public String toString() {
        return election.toString();
    }
}
