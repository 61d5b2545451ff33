package dev.tenure;

import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The Valkey lease in front of a run's database claim (layer 1 of DESIGN.md), with the fallback breaker and the outage
 * log of {@link JobCoordinator.Mode#VALKEY_WITH_DATABASE_FALLBACK}. It only filters: the losers learn in one round trip
 * that the job is held or the fire done, and never touch the database; whoever passes is still judged by the database
 * claim, the authority in every mode.
 */
final class ValkeyFilter {

    /** What the filter answered for one claim. */
    sealed interface Pass {
        /** The fire completed: the winner's marker stands in place of its lease, written after the database said so. */
        record Done() implements Pass {}

        /** Another process holds the job's Valkey lease past the wait, or the caller was interrupted before it. */
        record HeldElsewhere() implements Pass {}

        /** This process holds the job's Valkey lease: the database claim decides next. */
        record Through(Lease lease) implements Pass {}

        /**
         * The database alone decides: the database mode ({@code fallback} false), or Valkey skipped or unreachable in
         * the fallback mode ({@code fallback} true).
         */
        record DatabaseAlone(boolean fallback) implements Pass {}
    }

    private final @Nullable Leases valkey;
    private final JobCoordinator.Mode mode;
    private final CircuitBreaker breaker;
    private final FallbackLog log;

    ValkeyFilter(@Nullable Leases valkey, Settings settings) {
        this.valkey = valkey;
        this.mode = settings.modeWith(valkey);
        this.breaker = settings.breaker();
        this.log = new FallbackLog(settings.ticker(), mode);
    }

    JobCoordinator.Mode mode() {
        return mode;
    }

    /** True while a Valkey outage lasts in the fallback mode ({@link JobCoordinator#inFallback()}). */
    boolean inFallback() {
        return mode == JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK && log.inOutage();
    }

    /** Outages that sent runs to the database alone, each counted once ({@link JobCoordinator#fallbacks()}). */
    long fallbacks() {
        return log.outages();
    }

    /** What a probe of Valkey found: a problem counts as a failure (it may start an outage), an answer ends one. */
    void probed(Optional<String> problem) {
        if (problem.isPresent()) {
            log.unreachable(problem.get(), breaker.openFor());
        } else {
            log.valkeyAnswered();
        }
    }

    /**
     * Passes one claim through the filter. Losing the filter lease never interrupts the work: the database lease
     * decides. A run that reports the earlier run of a done fire asks the database about it, so it does not ask the
     * filter about the fire.
     *
     * @throws LeaseStoreUnavailableException in {@link JobCoordinator.Mode#VALKEY} while Valkey is unreachable
     */
    Pass pass(String jobKey, String fireKey, RunPolicy policy, LeaseOptions options) {
        if (mode == JobCoordinator.Mode.DATABASE) {
            return new Pass.DatabaseAlone(false);
        }
        if (mode == JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK && breaker.isOpen()) {
            return new Pass.DatabaseAlone(true);
        }
        Leases leases = Objects.requireNonNull(valkey);
        try {
            FilterAnswer v = leases.acquireFire(
                    jobKey,
                    policy.reportEarlierRun() ? null : fireKey,
                    policy.maxWait(),
                    options.withInterruptOnLoss(false));
            breaker.success();
            log.valkeyAnswered();
            if (v.alreadyDone()) {
                return new Pass.Done();
            }
            Lease lease = v.lease();
            return lease == null ? new Pass.HeldElsewhere() : new Pass.Through(lease);
        } catch (LeaseStoreUnavailableException e) {
            if (Thread.currentThread().isInterrupted()) {
                // the caller's interrupt, not Valkey's fault: as an acquire interrupted before it was sent
                return new Pass.HeldElsewhere();
            }
            log.unreachable(leases.describe(e), breaker.openFor());
            if (mode == JobCoordinator.Mode.VALKEY) {
                throw e;
            }
            breaker.failure();
            return new Pass.DatabaseAlone(true);
        }
    }
}
