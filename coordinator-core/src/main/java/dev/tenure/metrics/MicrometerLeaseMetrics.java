package dev.tenure.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Publishes lease metrics to a Micrometer registry (micrometer-core is an optional dependency: only this
 * class needs it). Also feeds a {@link TtlAdvisor} so operators can ask for a TTL that fits the observed
 * hold times. Thread-safe.
 */
public final class MicrometerLeaseMetrics implements LeaseMetrics {

    private final Map<AcquireOutcome, Timer> acquire = new EnumMap<>(AcquireOutcome.class);
    private final Timer hold;
    private final DistributionSummary headroom;
    private final Counter retries;
    private final Counter renewFailures;
    private final Counter lost;
    private final Counter releaseFailures;
    private final TtlAdvisor advisor = new TtlAdvisor(1024);

    public MicrometerLeaseMetrics(MeterRegistry registry) {
        for (AcquireOutcome o : AcquireOutcome.values()) {
            acquire.put(
                    o,
                    Timer.builder(MetricNames.ACQUIRE)
                            .tag("result", o.name().toLowerCase(Locale.ROOT))
                            .description("Lease acquire attempts by result")
                            .register(registry));
        }
        hold = Timer.builder(MetricNames.HOLD)
                .description("How long leases were held")
                .register(registry);
        headroom = DistributionSummary.builder(MetricNames.TTL_HEADROOM)
                .description("Hold time as a fraction of the TTL (1.0 = the whole TTL)")
                .register(registry);
        retries = registry.counter(MetricNames.RETRIES);
        renewFailures = registry.counter(MetricNames.RENEW_FAILURES);
        lost = registry.counter(MetricNames.LOST);
        releaseFailures = registry.counter(MetricNames.RELEASE_FAILURES);
    }

    @Override
    public void acquire(AcquireOutcome outcome, long nanos) {
        Objects.requireNonNull(acquire.get(outcome)).record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void held(Duration holdTime, Duration ttl) {
        hold.record(holdTime);
        headroom.record((double) holdTime.toNanos() / ttl.toNanos());
        advisor.record(holdTime);
    }

    @Override
    public void retry() {
        retries.increment();
    }

    @Override
    public void renewFailure() {
        renewFailures.increment();
    }

    @Override
    public void lost() {
        lost.increment();
    }

    @Override
    public void releaseFailure() {
        releaseFailures.increment();
    }

    /** The TTL advisor fed by observed hold times. */
    public TtlAdvisor ttlAdvisor() {
        return advisor;
    }
}
