package dev.tenure.console;

import dev.tenure.db.MissedSummary;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The values the console shows: what its queries return, rendered by the page and the CLI alike. */
final class Views {

    private Views() {}

    /**
     * A job or role (one {@code job_execution} row) with its latest run and how often it fired in the last hour.
     * {@code kind} is {@code job} when it has runs or a schedule, {@code role} when it has neither (a leader election or
     * a plain database lease: both are rows without runs). {@code leaseLeft} is by the database clock; null when nobody
     * holds it. {@code nodeName} is the holder's recorded node name (null when none was recorded).
     */
    record Job(
            String jobKey,
            String kind,
            long epoch,
            String owner,
            Instant claimedAt,
            Instant leaseExpiresAt,
            Duration leaseLeft,
            String lastStatus,
            String lastFireKey,
            Instant lastStartedAt,
            long firesLastHour,
            String nodeName) {

        /** The holder's node: its name, or the process behind its owner id; null when nobody holds it. */
        String node() {
            return held() ? Nodes.named(nodeName, owner) : null;
        }

        /** True while an owner's database lease is live. */
        boolean held() {
            return owner != null && leaseLeft != null && !leaseLeft.isNegative() && !leaseLeft.isZero();
        }
    }

    /**
     * One run (a {@code job_run} row). {@code rotation}: the run before it (older; MISSED fires, which nobody ran, left
     * out) was run by another node. That is how a healthy cluster shares the fires, not an incident; the incidents are
     * {@link #incident()}. A row taken over keeps only its latest attempt; {@code previousStatus} is how the attempt
     * before it ended. {@code nodeName} is the recorded node name (null for rows written without one); {@code traceId} the
     * run's trace id (null when it was not traced).
     */
    record Run(
            UUID runId,
            String fireKey,
            long epoch,
            String owner,
            String nodeName,
            String status,
            int attempt,
            String previousStatus,
            Instant startedAt,
            Instant finishedAt,
            String error,
            boolean rotation,
            String traceId) {

        /** The run's duration, or null while it runs. */
        Duration duration() {
            return finishedAt == null ? null : Duration.between(startedAt, finishedAt);
        }

        /** The node that ran it: its recorded name, or the process behind its owner id. */
        String node() {
            return Nodes.named(nodeName, owner);
        }

        /** This run with {@code rotation} set. */
        Run withRotation(boolean rotation) {
            return new Run(
                    runId,
                    fireKey,
                    epoch,
                    owner,
                    nodeName,
                    status,
                    attempt,
                    previousStatus,
                    startedAt,
                    finishedAt,
                    error,
                    rotation,
                    traceId);
        }

        /**
         * True if an operator should look at it: it failed, was missed, or it (or the attempt it took over) lost its
         * lease mid-run (ABANDONED, REJECTED_STALE). A rotation alone is not an incident.
         */
        boolean incident() {
            return "FAILED".equals(status) || missed() || staleRejected() || abandoned();
        }

        /** True if this run, or the attempt it took over, was a stale holder refused by the fence (REJECTED_STALE). */
        boolean staleRejected() {
            return "REJECTED_STALE".equals(status) || "REJECTED_STALE".equals(previousStatus);
        }

        /** True if this run, or the attempt it took over, was ABANDONED (its holder's lease ended mid-run). */
        boolean abandoned() {
            return "ABANDONED".equals(status) || "ABANDONED".equals(previousStatus);
        }

        /** True for a fire the sweeper recorded MISSED: it did not complete, and {@code owner} is the sweeper's id. */
        boolean missed() {
            return "MISSED".equals(status);
        }

        /**
         * True for a MISSED fire whose run did start: the sweeper turned its row MISSED after its holder lost its lease
         * ({@code previousStatus} is how it stood: RUNNING, ABANDONED or REJECTED_STALE; {@code nodeName} the node that
         * ran it). False for a fire nobody started.
         */
        boolean startedBeforeMissed() {
            return missed() && previousStatus != null;
        }

        /** The run of fires this MISSED row stands for, if it is a summary record ({@link MissedSummary}). */
        Optional<MissedSummary> summary() {
            return missed() ? MissedSummary.of(fireKey, error) : Optional.empty();
        }

        /** The fires it counts as missed: 0 unless MISSED, a summary record's count, else 1. */
        long missedFires() {
            return missed() ? MissedSummary.firesOf(fireKey, error) : 0;
        }

        /** Its fire key, or a summary record's one line ({@code 11460 fires <first>..<last> missed}). */
        String fireLabel() {
            return summary().map(MissedSummary::line).orElse(fireKey);
        }

        /**
         * When the fire was due, if its key is an ISO-8601 instant ({@code 2026-12-03T10:00:00Z}), as the fire keys of
         * Tenure's schedules are; null for other keys.
         */
        Instant fireTime() {
            if (fireKey.length() < 20 || fireKey.charAt(4) != '-' || !fireKey.endsWith("Z")) {
                return null;
            }
            try {
                return Instant.parse(fireKey);
            } catch (java.time.format.DateTimeParseException e) {
                return null;
            }
        }
    }

    /** One page of a job's runs, newest first; {@code next} continues after the last one. */
    record RunPage(String jobKey, List<Run> runs, Optional<Cursor> next) {}

    /**
     * A job's latest runs (at most {@link ConsoleQueries#RECENT}, oldest first) and what happened in them. Each fire is
     * in exactly one bucket, by how its row ended, so the buckets add up to {@link #fires()}: {@link #completed()} (on
     * its first attempt), {@link #caughtUp()} (completed after an earlier attempt was lost or failed), {@code
     * staleRejected} (REJECTED_STALE: its holder came back after losing its lease and was refused), {@code abandoned}
     * (ABANDONED: its holder's lease ended mid-run and nobody ran it again yet), {@code failed}, {@code missed} (MISSED,
     * a summary record by the fires it stands for) and {@link #running()}. Rotations count node changes between
     * consecutive runs apart from the buckets (not incidents: healthy nodes share the fires).
     */
    record Summary(
            String jobKey, List<Run> recent, int rotations, int staleRejected, int abandoned, int failed, long missed) {

        /** The fires the runs stand for: one a row, a summary record's count for one. */
        long fires() {
            return recent.stream()
                    .mapToLong(r -> r.missed() ? r.missedFires() : 1)
                    .sum();
        }

        /** COMPLETED on the first attempt. */
        long completed() {
            return recent.stream()
                    .filter(r -> "COMPLETED".equals(r.status()) && r.previousStatus() == null)
                    .count();
        }

        /** COMPLETED by a later attempt, after an earlier one was lost (fenced off) or failed. */
        long caughtUp() {
            return recent.stream()
                    .filter(r -> "COMPLETED".equals(r.status()) && r.previousStatus() != null)
                    .count();
        }

        /** RUNNING now (or its holder's lease ended and nobody took it over yet). */
        long running() {
            return recent.stream().filter(r -> "RUNNING".equals(r.status())).count();
        }
    }

    /**
     * A role without runs: its current leader's owner id (null if none is live) and node ({@code leaderNode}: its name,
     * or the process behind the owner id), its epoch, and since when it leads.
     */
    record Leader(String role, long epoch, String leader, String leaderNode, Instant since, Duration leaseLeft) {}

    /**
     * An operator's action from {@code audit_log}; {@code oldNode} is null when no node name was recorded; the epochs
     * are null for an action that moved none (a retirement).
     */
    record Audit(
            Instant at,
            String actor,
            String action,
            String reason,
            Long oldEpoch,
            String oldOwner,
            Long newEpoch,
            String oldNode) {}
}
