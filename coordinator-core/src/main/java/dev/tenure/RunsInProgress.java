package dev.tenure;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runs a {@link JobCoordinator} claimed and that did not end yet, for its close: it waits for them up to the drain
 * timeout, then abandons the rest, so that no lease outlives the coordinator.
 */
final class RunsInProgress {

    /** The coordinator's logger: operators find the shutdown lines under the class they configure. */
    private static final Logger LOG = LoggerFactory.getLogger(JobCoordinator.class);

    /** Its monitor is notified when a run ends. */
    private final Set<ActiveRun> active = ConcurrentHashMap.newKeySet();
    /** Set once the drain stopped waiting: a run claimed from then on is abandoned at once. */
    private volatile boolean abandoning;

    /**
     * Tracks {@code run} until it ends. A run claimed after the drain stopped waiting is abandoned at once (its leases
     * released), and the caller gets the same error as a run begun after the close.
     */
    ActiveRun tracked(ActiveRun run) {
        active.add(run);
        run.whenEnded(() -> {
            active.remove(run);
            synchronized (active) {
                active.notifyAll();
            }
        });
        if (abandoning) {
            run.abandon(JobCoordinator.SHUTDOWN + ": the coordinator closed while the run was being claimed");
            throw new IllegalStateException("the JobCoordinator is closed: no new run of job '" + run.jobKey() + "'");
        }
        return run;
    }

    /** Waits up to {@code timeout} for every tracked run to end, then abandons those still going. */
    void drain(Duration timeout) {
        awaitRuns(timeout);
        abandoning = true;
        for (ActiveRun run : List.copyOf(active)) {
            cutShort(run);
        }
    }

    /**
     * Abandons {@code run}, which did not end within the drain, and says so in one INFO line: this node is the one that
     * knows, and the next node to look at the fire only finds its row.
     */
    private static void cutShort(ActiveRun run) {
        RunOutcome<?> o = run.abandon(JobCoordinator.SHUTDOWN
                + ": its holder stopped, and the run did not end within the drain " + "timeout");
        if (o == null) {
            return; // it ended meanwhile
        }
        if (o.status() == RunOutcome.Status.EXECUTED) {
            LOG.info(
                    "{}: fire {} was still running when this node's drain timeout ran out; it had completed its fire "
                            + "in its own transaction, so the fire is done",
                    run.jobKey(),
                    run.fireKey());
            return;
        }
        LOG.info(
                "{}: fire {} cut short by this node's shutdown: it had run {} ms when the drain timeout ran out. "
                        + "Recorded ABANDONED (reason shutdown) under epoch {} and its leases released: nothing it did "
                        + "not commit itself is kept, another node may claim the job at once, and the fire is caught "
                        + "up or recorded MISSED by its job's missed-fire policy",
                run.jobKey(),
                run.fireKey(),
                o.ran().toMillis(),
                run.epoch());
    }

    private void awaitRuns(Duration drain) {
        long deadline = System.nanoTime() + drain.toNanos();
        synchronized (active) {
            while (!active.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return;
                }
                try {
                    TimeUnit.NANOSECONDS.timedWait(active, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
