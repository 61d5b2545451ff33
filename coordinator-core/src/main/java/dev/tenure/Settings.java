package dev.tenure;

import dev.tenure.metrics.LeaseMetrics;
import dev.tenure.spi.LeaseStore;
import dev.tenure.spi.RunLedger;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The knobs of one Tenure, fixed by {@link Tenure.Builder#build()}: what its {@link JobCoordinator}, its elections and
 * its sweeper read. A knob has one setter, on {@link Tenure.Builder}, and one component here; nothing between the two
 * relays it. Tests of this package take theirs from {@code Tenure.builder()...settings()}.
 *
 * @param nodeName              this node's name, on runs, election terms and log lines
 * @param application           whose schedules this process registers and sweeps
 * @param mode                  the coordinator's mode with Valkey (null: the default fallback mode); without Valkey
 *                              the mode is {@link JobCoordinator.Mode#DATABASE} whatever this says
 * @param leaseDefaults         TTL and renewal of every lease, run and election
 * @param ticker                the monotonic clock of deadlines
 * @param clock                 this node's wall clock, compared with the database's
 * @param breakerFailures       Valkey failures in a row that open a fallback breaker
 * @param breakerOpenFor        how long a fallback breaker stays open
 * @param sweepInterval         how often the sweeper looks for missed fires
 * @param retireSchedulesAfter  how long a schedule nobody registers stays in the sweeps
 * @param drainTimeout          how long a close waits for the runs in progress
 * @param leaseCallTimeout      the lease engine's bound on one store call (null: its default)
 * @param maxLocalHandOffs      local hand-offs in a row (null: the lease engine's default)
 * @param maxTurn               how long this process may keep a key between its threads (null: the default)
 * @param observationRegistry   a Micrometer {@code ObservationRegistry}, or null for no observations
 * @param observationConvention a {@code TenureRunObservationConvention}, or null for the default
 */
record Settings(
        String nodeName,
        String application,
        JobCoordinator.@Nullable Mode mode,
        LeaseOptions leaseDefaults,
        Ticker ticker,
        Clock clock,
        int breakerFailures,
        Duration breakerOpenFor,
        Duration sweepInterval,
        Duration retireSchedulesAfter,
        Duration drainTimeout,
        @Nullable Duration leaseCallTimeout,
        @Nullable Integer maxLocalHandOffs,
        @Nullable Duration maxTurn,
        @Nullable Object observationRegistry,
        @Nullable Object observationConvention) {

    Settings {
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(application, "application");
        Objects.requireNonNull(leaseDefaults, "leaseDefaults");
        Objects.requireNonNull(ticker, "ticker");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(breakerOpenFor, "breakerOpenFor");
        Objects.requireNonNull(sweepInterval, "sweepInterval");
        Objects.requireNonNull(retireSchedulesAfter, "retireSchedulesAfter");
        Objects.requireNonNull(drainTimeout, "drainTimeout");
    }

    /** The mode runs use: the configured one with Valkey, the database mode without it. */
    JobCoordinator.Mode modeWith(@Nullable Leases valkey) {
        if (valkey == null) {
            return JobCoordinator.Mode.DATABASE;
        }
        return mode == null ? JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK : mode;
    }

    /** A new fallback breaker: the coordinator has one, and every election its own. */
    CircuitBreaker breaker() {
        return new CircuitBreaker(breakerFailures, breakerOpenFor, ticker);
    }

    /** The node name as an election's label: what its participant id and log lines begin with. */
    String electionLabel() {
        return nodeName.length() <= 100 ? nodeName : nodeName.substring(0, 100);
    }

    /** Leases on {@code store}, with these settings' defaults, bounds and node name. */
    Leases leases(LeaseStore store, LeaseMetrics metrics, RunLedger ledger) {
        Leases.Builder l = Leases.builder(store)
                .defaults(leaseDefaults)
                .ticker(ticker)
                .metrics(metrics)
                .ledgerId(ledger.ledgerId())
                .nodeName(nodeName);
        if (leaseCallTimeout != null) {
            l.callTimeout(leaseCallTimeout);
        }
        if (maxLocalHandOffs != null) {
            l.maxLocalHandOffs(maxLocalHandOffs);
        }
        if (maxTurn != null) {
            l.maxTurn(maxTurn);
        }
        return l.build();
    }
}
