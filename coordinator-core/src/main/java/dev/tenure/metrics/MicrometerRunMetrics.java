package dev.tenure.metrics;

import dev.tenure.RunOutcome;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Publishes run metrics to a Micrometer registry: {@value MetricNames#RUN_UNFENCED} counts runs that executed without a
 * single fence check (operators see jobs that write unprotected), {@value MetricNames#FENCE_REJECTED} counts fence
 * checks refused as stale; both tagged {@code job}. Thread-safe.
 */
public final class MicrometerRunMetrics implements RunMetrics {

    private final MeterRegistry registry;
    /** The live sweeper's gauges, by name and job: removed when this node stops sweeping. */
    private final Map<String, Gauge> sweeperGauges = new ConcurrentHashMap<>();

    private final Map<String, AtomicInteger> overdue = new ConcurrentHashMap<>();
    private final AtomicInteger unswept = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong skewMillis = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean gauges;

    public MicrometerRunMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void runEnded(String jobKey, RunOutcome.Status status, int fenceChecks) {
        if (status == RunOutcome.Status.EXECUTED && fenceChecks == 0) {
            registry.counter(MetricNames.RUN_UNFENCED, "job", jobKey).increment();
        }
    }

    @Override
    public void fireMissed(String jobKey, String reason) {
        registry.counter(MetricNames.FIRE_MISSED, "job", jobKey, "reason", reason)
                .increment();
    }

    @Override
    public void firesMissed(String jobKey, String reason, long count) {
        registry.counter(MetricNames.FIRE_MISSED, "job", jobKey, "reason", reason)
                .increment(count);
    }

    @Override
    public synchronized void schedulesUnswept(int count) {
        unswept.set(count);
        sweeperGauges.computeIfAbsent(
                MetricNames.SCHEDULES_UNSWEPT,
                k -> Gauge.builder(k, unswept, AtomicInteger::get)
                        .description(
                                "schedules (of any application) that nobody swept for a while, as the live sweeper counts")
                        .register(registry));
    }

    @Override
    public synchronized void notSweeping() {
        sweeperGauges.values().forEach(registry::remove);
        sweeperGauges.clear();
        overdue.clear();
    }

    @Override
    public void clockSkew(java.time.Duration skew) {
        registerGauges();
        skewMillis.set(skew.toMillis());
    }

    private void registerGauges() {
        if (!gauges) {
            synchronized (this) {
                if (!gauges) {
                    io.micrometer.core.instrument.Gauge.builder(
                                    MetricNames.CLOCK_SKEW, skewMillis, v -> v.get() / 1000.0)
                            .baseUnit("seconds")
                            .description(
                                    "how far this node's clock is ahead of the database's, as the sweeper measured")
                            .register(registry);
                    gauges = true;
                }
            }
        }
    }

    @Override
    public synchronized void firesOverdue(String jobKey, int count) {
        overdue.computeIfAbsent(jobKey, k -> {
                    AtomicInteger value = new AtomicInteger();
                    sweeperGauges.put(
                            MetricNames.FIRE_OVERDUE + "/" + k,
                            Gauge.builder(MetricNames.FIRE_OVERDUE, value, AtomicInteger::get)
                                    .tags(Tags.of("job", k))
                                    .description("fires of the job that are due, not completed and not running, as "
                                            + "the live sweeper counts")
                                    .register(registry));
                    return value;
                })
                .set(count);
    }

    @Override
    public void fenceRejected(String jobKey) {
        registry.counter(MetricNames.FENCE_REJECTED, "job", jobKey).increment();
    }
}
