package dev.tenure.bench.coordinated;

import java.util.Map;
import org.HdrHistogram.Histogram;

/** The measurements of one scenario in one window. Per-unit figures divide window deltas by the window's units. */
record Row(
        Scenario scenario,
        boolean syncOff,
        double seconds,
        String load,
        long units,
        long minPerNode,
        long maxPerNode,
        long held,
        long done,
        long errors,
        String firstError,
        Histogram latency,
        long executions,
        long clientCommits,
        Map<String, Double> pg,
        Map<String, Long> valkey,
        double machineBusy,
        double machineCores,
        double nodesCpu,
        Map<String, Double> nodeThreads,
        double pgCpu,
        double valkeyCpu,
        long effects,
        long duplicates,
        long backlogLeft,
        Map<String, Long> waits,
        Map<String, Double> lifetime,
        long lifetimeAttempts) {

    double perSecond() {
        return units / seconds;
    }

    double perUnit(double v) {
        return units == 0 ? Double.NaN : v / units;
    }

    /** Lifetime (first connection to last exit of the nodes) counter per business row; NaN if unknown. */
    double lifetimePerEffect(String key) {
        return lifetime.isEmpty() || effects == 0 ? Double.NaN : lifetime.getOrDefault(key, 0.0) / effects;
    }

    double pg(String key) {
        return pg.getOrDefault(key, 0.0);
    }

    /** Average number of backends per sample in {@code category}. */
    double backends(String category) {
        long n = waits.getOrDefault("samples", 0L);
        return n == 0 ? Double.NaN : (double) waits.getOrDefault(category, 0L) / n;
    }

    /** CPU seconds of the nodes' JIT compiler threads over the window. */
    double jitCpu() {
        return nodeThreads.entrySet().stream()
                .filter(e -> e.getKey().contains("CompilerThre"))
                .mapToDouble(Map.Entry::getValue)
                .sum();
    }

    long valkeyCommands() {
        return valkey.values().stream().mapToLong(Long::longValue).sum();
    }
}
