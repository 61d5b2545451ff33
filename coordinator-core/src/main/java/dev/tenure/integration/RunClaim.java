package dev.tenure.integration;

import dev.tenure.RunOutcome;

/**
 * What {@link dev.tenure.JobCoordinator#begin} found: the run is this process's to do ({@link Claimed}), or it is not
 * ({@link NotClaimed}, with the outcome that says why). For hosts whose start and end of a run happen in two
 * callbacks (a Quartz trigger listener and job listener, a Spring Batch launch and its {@code afterJob}).
 */
public sealed interface RunClaim permits RunClaim.Claimed, RunClaim.NotClaimed {

    /** This process holds the job and has started the fire: run it, then {@link ClaimedRun#finish} it. */
    record Claimed(ClaimedRun run) implements RunClaim {}

    /**
     * Not this process's run: {@code outcome} is {@link RunOutcome.Status#SKIPPED_HELD_ELSEWHERE},
     * {@link RunOutcome.Status#SKIPPED_ALREADY_DONE}, {@link RunOutcome.Status#SKIPPED_MISSED} or
     * {@link RunOutcome.Status#TIMED_OUT_WAITING}.
     */
    record NotClaimed(RunOutcome<Void> outcome) implements RunClaim {}
}
