package dev.tenure;

import dev.tenure.observation.DefaultTenureRunObservationConvention;
import dev.tenure.observation.TenureRunObservationContext;
import dev.tenure.observation.TenureRunObservationConvention;
import dev.tenure.observation.TenureRunObservationDocumentation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Runs as Micrometer observations ({@link TenureRunObservationDocumentation}): loaded only when an
 * {@code ObservationRegistry} is given (Micrometer is optional). Thread-safe.
 */
final class ObservedRuns implements RunObserver {

    private final ObservationRegistry registry;
    private final @Nullable TenureRunObservationConvention convention;
    private final String mode;
    private final @Nullable String node;

    private ObservedRuns(
            ObservationRegistry registry,
            @Nullable TenureRunObservationConvention convention,
            String mode,
            @Nullable String node) {
        this.registry = registry;
        this.convention = convention;
        this.mode = mode;
        this.node = node;
    }

    static Object checkRegistry(Object registry) {
        if (!(registry instanceof ObservationRegistry)) {
            throw new IllegalArgumentException(
                    "observationRegistry must be an io.micrometer.observation." + "ObservationRegistry (got "
                            + (registry == null ? "null" : registry.getClass().getName()) + ")");
        }
        return registry;
    }

    static Object checkConvention(Object convention) {
        if (!(convention instanceof TenureRunObservationConvention)) {
            throw new IllegalArgumentException("observationConvention must be a dev.tenure.observation."
                    + "TenureRunObservationConvention (got "
                    + (convention == null ? "null" : convention.getClass().getName()) + ")");
        }
        return convention;
    }

    /** The observer of {@code registry}, or {@link RunObserver#NONE} when it is null. */
    static RunObserver of(
            Object registry, @Nullable Object convention, JobCoordinator.Mode mode, @Nullable String node) {
        return registry == null
                ? RunObserver.NONE
                : new ObservedRuns(
                        (ObservationRegistry) registry, (TenureRunObservationConvention) convention, mode.name(), node);
    }

    @Override
    public Run start(String jobKey, String fireKey, String integration) {
        try {
            return new Observed(jobKey, fireKey, integration);
        } catch (RuntimeException e) {
            return Run.NONE; // observations never break a run
        }
    }

    /** The observations of one run: the run's, and one phase at a time. Thread-safe. */
    private final class Observed implements Run {
        private final String jobKey;
        private final String fireKey;
        private final String integration;
        private final TenureRunObservationContext runContext;
        private final Observation run;
        private final @Nullable String traceId;
        private @Nullable Observation phase;
        private @Nullable TenureRunObservationContext phaseContext;
        /** The scopes of the run and its claim, or of its completion, on {@link #scopeThread}. */
        private Observation.@Nullable Scope outerScope;

        private Observation.@Nullable Scope innerScope;
        private @Nullable Thread scopeThread;
        private boolean completing;
        private boolean ended;

        Observed(String jobKey, String fireKey, String integration) {
            this.jobKey = jobKey;
            this.fireKey = fireKey;
            this.integration = integration;
            this.runContext = context(TenureRunObservationDocumentation.RUN);
            this.run = observation(TenureRunObservationDocumentation.RUN, runContext, null)
                    .start();
            this.traceId = TraceIds.of(runContext);
            outerScope = run.openScope();
            scopeThread = Thread.currentThread();
            begin(TenureRunObservationDocumentation.CLAIM);
        }

        private TenureRunObservationContext context(TenureRunObservationDocumentation which) {
            return new TenureRunObservationContext(which, jobKey, fireKey, mode, integration, node);
        }

        private Observation observation(
                TenureRunObservationDocumentation which, TenureRunObservationContext c, @Nullable Observation parent) {
            Observation o =
                    which.observation(convention, DefaultTenureRunObservationConvention.INSTANCE, () -> c, registry);
            return parent == null ? o : o.parentObservation(parent);
        }

        /** Starts a phase, current on the calling thread when it is the claim or the completion. */
        private void begin(TenureRunObservationDocumentation which) {
            TenureRunObservationContext c = context(which);
            phaseContext = c;
            c.claimed(runContext.epoch(), runContext.owner(), runContext.fallback());
            // the run current while the phase starts: a tracer that takes the current span as the parent
            // (OpenTelemetry's bridge does) nests the phase under the run, not under a work scope left open on this
            // thread
            Observation started;
            try (Observation.Scope s = run.openScope()) {
                started = observation(which, c, run).start();
            }
            phase = started;
            if (which != TenureRunObservationDocumentation.WORK) {
                innerScope = started.openScope();
                scopeThread = Thread.currentThread();
            }
        }

        /** Ends the phase with {@code outcome}, after closing its scopes (on their thread only). */
        private void endPhase(String outcome, @Nullable Throwable error) {
            closeScopes();
            if (phase == null) {
                return;
            }
            Objects.requireNonNull(phaseContext).outcome(outcome);
            if (error != null) {
                phase.error(error);
            }
            phase.stop();
            phase = null;
        }

        private void closeScopes() {
            if (scopeThread != Thread.currentThread()) {
                return; // a scope belongs to its thread; the other thread's scope ends with its observation
            }
            if (innerScope != null) {
                innerScope.close();
                innerScope = null;
            }
            if (outerScope != null) {
                outerScope.close();
                outerScope = null;
            }
        }

        private void endRun(String outcome, @Nullable Throwable error) {
            ended = true;
            runContext.outcome(outcome);
            if (error != null) {
                run.error(error);
            }
            run.stop();
        }

        @Override
        public synchronized void claimed(long epoch, String owner, boolean fallback) {
            try {
                runContext.claimed(epoch, owner, fallback);
                Objects.requireNonNull(phaseContext).claimed(epoch, owner, fallback);
                endPhase("CLAIMED", null);
                begin(TenureRunObservationDocumentation.WORK);
            } catch (RuntimeException e) {
                // observations never break a run
            }
        }

        @Override
        public synchronized void notClaimed(RunOutcome<?> outcome) {
            try {
                runContext.fallback(outcome.viaFallback());
                Objects.requireNonNull(phaseContext).fallback(outcome.viaFallback());
                endPhase(outcome.status().name(), null);
                endRun(outcome.status().name(), null);
            } catch (RuntimeException e) {
                // observations never break a run
            }
        }

        @Override
        public synchronized void failed(Throwable fault) {
            try {
                endPhase("FAULT", fault);
                endRun("FAULT", fault);
            } catch (RuntimeException e) {
                // observations never break a run
            }
        }

        @Override
        public synchronized Scope openWork() {
            if (ended || completing || phase == null) {
                return Scope.NONE;
            }
            try {
                Observation.Scope s = phase.openScope();
                Thread opener = Thread.currentThread();
                return () -> {
                    if (Thread.currentThread() == opener) {
                        s.close();
                    }
                };
            } catch (RuntimeException e) {
                return Scope.NONE;
            }
        }

        @Override
        public synchronized void completing(@Nullable Throwable error) {
            if (completing || ended) {
                return;
            }
            completing = true;
            try {
                endPhase(error == null ? "SUCCEEDED" : "FAILED", error);
                begin(TenureRunObservationDocumentation.COMPLETE);
            } catch (RuntimeException e) {
                // observations never break a run
            }
        }

        @Override
        public synchronized void ended(RunOutcome<?> outcome) {
            if (ended) {
                return;
            }
            try {
                String status = outcome.status().name();
                endPhase(completing ? status : TenureRunObservationContext.UNKNOWN, null);
                endRun(status, outcome.status() == RunOutcome.Status.EXECUTED ? null : outcome.error());
            } catch (RuntimeException e) {
                // observations never break a run
            }
        }

        @Override
        public @Nullable String traceId() {
            return traceId;
        }
    }
}
