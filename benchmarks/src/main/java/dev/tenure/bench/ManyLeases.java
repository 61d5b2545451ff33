package dev.tenure.bench;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.Leases;
import dev.tenure.spi.LeaseStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * Scenario C: one JVM holds {@code --many-leases} (10,000) leases for {@code --many-seconds} (60) and its watchdog
 * keeps them alive. Measures the watchdog thread's CPU ({@link ThreadMXBean}) and the whole JVM's (per thread group,
 * without the JIT) in ms of CPU per second of wall time, the store calls per renewal period (Valkey: script calls from
 * {@code INFO commandstats}; database: commits from {@code pg_stat_database}), renewal latency (every renewal timed
 * by {@link TimedRenewals}) and leases lost. Every key is acquired first (16 threads), then the window runs.
 */
final class ManyLeases {

    /**
     * One store's row.
     *
     * @param calls store-side calls in the window (script calls, or database commits), -1 if not known
     */
    record Result(
            String store,
            int leases,
            double seconds,
            Duration ttl,
            long renewals,
            long refused,
            long failed,
            int lost,
            Histogram latency,
            double watchdogCpuSeconds,
            CpuWindow.Usage cpu,
            long calls,
            Map<String, Long> commands,
            String firstError) {

        double periods() {
            return seconds * 1e9 / LeaseOptions.ofTtl(ttl).renewEvery().toNanos();
        }
    }

    private ManyLeases() {}

    /**
     * @param calls a counter of the store's server-side calls (read before and after the window), or null
     * @param commands the server's command counts (Valkey), or null
     */
    static Result run(String name, LeaseStore raw, BenchConfig cfg, Supplier<Long> calls, ValkeyAdmin commands)
            throws Exception {
        TimedRenewals store = new TimedRenewals(raw);
        LeaseOptions options = LeaseOptions.ofTtl(cfg.manyTtl);
        List<Lease> held = new ArrayList<>(cfg.manyLeases);
        String firstError = null;
        try (Leases leases = Leases.of(store)) {
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try {
                List<Future<Lease>> f = new ArrayList<>();
                for (int i = 0; i < cfg.manyLeases; i++) {
                    String key = cfg.keyPrefix("many-" + name) + ":" + i;
                    f.add(pool.submit(() -> leases.tryAcquire(key, options).orElse(null)));
                }
                for (Future<Lease> x : f) {
                    try {
                        Lease l = x.get();
                        if (l != null) {
                            held.add(l);
                        }
                    } catch (Exception e) {
                        firstError = firstError == null ? "acquire: " + e.getCause() : firstError;
                    }
                }
            } finally {
                pool.shutdown();
            }
            System.out.println("# many " + name + ": " + held.size() + " of " + cfg.manyLeases + " leases held; "
                    + "window " + cfg.manyDuration.toSeconds() + " s");
            System.out.flush();
            store.interval(); // acquisitions' stray renewals (none expected) out of the window
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long watchdog = watchdogThread(mx);
            long wd0 = watchdog < 0 ? 0 : mx.getThreadCpuTime(watchdog);
            long r0 = store.renewals.sum();
            long x0 = store.refused.sum();
            long e0 = store.failed.sum();
            Long c0 = calls == null ? null : calls.get();
            Map<String, Long> cmd0 = commands == null ? null : commands.commandCalls();
            CpuWindow cpu = CpuWindow.start(null);
            long t0 = System.nanoTime();
            Poll.sleepNanos(cfg.manyDuration.toNanos());
            double seconds = (System.nanoTime() - t0) / 1e9;
            CpuWindow.Usage usage = cpu.stop(null);
            long wd1 = watchdog < 0 ? 0 : mx.getThreadCpuTime(watchdog);
            Map<String, Long> cmd = commands == null ? Map.of() : ValkeyAdmin.delta(cmd0, commands.commandCalls());
            long c = calls == null ? -1 : calls.get() - c0;
            Histogram latency = store.interval();
            int lost = (int)
                    held.stream().filter(l -> l.state() == LeaseState.LOST).count();
            Result r = new Result(
                    name,
                    held.size(),
                    seconds,
                    cfg.manyTtl,
                    store.renewals.sum() - r0,
                    store.refused.sum() - x0,
                    store.failed.sum() - e0,
                    lost,
                    latency,
                    (wd1 - wd0) / 1e9,
                    usage,
                    c,
                    cmd,
                    firstError);
            for (Lease l : held) {
                l.release();
            }
            return r;
        }
    }

    private static long watchdogThread(ThreadMXBean mx) {
        for (ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (t != null && t.getThreadName().equals("tenure-watchdog")) {
                return t.getThreadId();
            }
        }
        return -1;
    }
}
