package dev.tenure.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Lock benchmark program: compares lock implementations against one Valkey server and prints plain-text tables.
 * Scenario A ({@link UncontendedPairs}): acquire+release pairs on distinct keys. Scenario B ({@link ContendedHandoff}):
 * many threads contending for one key. Plus {@code valkey-benchmark} as the server limit.
 *
 * <p>Run through {@code benchmarks/run.sh}, which starts a private valkey-server.
 */
public final class LockBenchmark {

    private LockBenchmark() {}

    public static void main(String[] args) throws Exception {
        BenchConfig cfg;
        try {
            cfg = BenchConfig.parse(args);
        } catch (IllegalArgumentException e) {
            if (!e.getMessage().isEmpty()) {
                System.err.println("error: " + e.getMessage());
            }
            System.err.printf(BenchConfig.USAGE, String.join(",", Drivers.DEFAULT), String.join(",", Drivers.known()));
            System.exit(2);
            return;
        }
        int rc;
        try (ValkeyAdmin admin = new ValkeyAdmin(cfg)) {
            rc = new LockBenchmark().run(cfg, admin);
        }
        System.out.flush();
        // Some client libraries leave non-daemon threads behind; the benchmark is done.
        System.exit(rc);
    }

    private int run(BenchConfig cfg, ValkeyAdmin admin) throws Exception {
        System.out.println("== Tenure lock benchmark ==");
        System.out.println("server     " + cfg.host() + ":" + cfg.port() + "  valkey "
                + admin.serverField("valkey_version") + "  (dbsize at start " + admin.dbsize() + ")");
        System.out.println(
                "jvm        " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                        + ", availableProcessors=" + Runtime.getRuntime().availableProcessors());
        System.out.println("libraries  " + Format.libVersions());
        System.out.println("run        id=" + cfg.runId + " drivers=" + cfg.drivers
                + " scenario=" + cfg.scenario
                + " warmup=" + cfg.warmup.toMillis() / 1000.0 + "s pairs=" + cfg.pairsDuration.toMillis() / 1000.0
                + "s handoff=" + cfg.handoffDuration.toMillis() / 1000.0 + "s ttl=" + Format.ms(cfg.ttl)
                + " timeout=" + Format.ms(cfg.requestTimeout) + " poll=" + Format.ms(cfg.poll));
        System.out.println();

        Map<String, String> descriptions = new LinkedHashMap<>();
        if (cfg.scenario.equals("many")) {
            ManyLeasesReport.run(cfg, admin);
            return 0;
        }
        boolean pairs = !cfg.scenario.equals("handoff");
        boolean handoff = !cfg.scenario.equals("pairs");
        if (pairs) {
            List<Baseline.Result> baseline = new ArrayList<>();
            if (cfg.baseline) {
                progress("valkey-benchmark -t set -n " + cfg.baselineRequests + " -c " + cfg.threads + " ...");
                long before = admin.dbsize();
                baseline = Baseline.run(cfg, cfg.threads);
                if (admin.dbsize() > before) {
                    admin.del("key:__rand_int__"); // the single key valkey-benchmark -t set writes without -r
                }
            }
            List<UncontendedPairs.Result> results = new ArrayList<>();
            Map<String, String> failures = new LinkedHashMap<>();
            for (String name : cfg.drivers) {
                try (LockDriver d = Drivers.create(name, cfg)) {
                    descriptions.put(name, d.describe());
                    for (int threads : cfg.threads) {
                        UncontendedPairs.Result r = UncontendedPairs.run(d, admin, cfg, threads);
                        results.add(r);
                        progress(String.format(
                                Locale.ROOT,
                                "pairs %-14s threads=%-3d %s pairs/s p50=%s us p99=%s us errors=%d",
                                name,
                                threads,
                                Format.num(r.pairsPerSecond()),
                                Format.micros(r.latency().getValueAtPercentile(50)),
                                Format.micros(r.latency().getValueAtPercentile(99)),
                                r.errors() + r.notAcquired()));
                    }
                } catch (Exception | Error e) {
                    failures.put(name, e.toString());
                    progress("pairs " + name + " FAILED: " + e);
                }
            }
            printPairs(cfg, results, baseline, failures);
        }
        if (handoff) {
            List<ContendedHandoff.Result> results = new ArrayList<>();
            Map<String, String> failures = new LinkedHashMap<>();
            for (String name : cfg.drivers) {
                try (LockDriver d = Drivers.create(name, cfg)) {
                    descriptions.put(name, d.describe());
                    ContendedHandoff.Result r = ContendedHandoff.run(d, admin, cfg);
                    results.add(r);
                    progress(String.format(
                            Locale.ROOT,
                            "handoff %-14s %s sections/s timeouts=%d errors=%d",
                            name,
                            Format.num(r.sectionsPerSecond()),
                            r.timeouts(),
                            r.errors()));
                    System.out.printf(
                            Locale.ROOT,
                            "%s gaps: %d %s: %.1f%% of the window between holders%n",
                            name,
                            r.gap().getTotalCount(),
                            ContendedHandoff.gapSummary(r.gap()),
                            ContendedHandoff.gapShareOfWindow(r.gap(), cfg.handoffDuration));
                } catch (Exception | Error e) {
                    failures.put(name, e.toString());
                    progress("handoff " + name + " FAILED: " + e);
                }
                if (cfg.handoffProcesses > 1) {
                    try {
                        ContendedHandoff.Result r = MultiProcessHandoff.run(name, admin, cfg, childArgs(cfg));
                        results.add(r);
                        progress(String.format(
                                Locale.ROOT,
                                "handoff %-14s %s sections/s timeouts=%d errors=%d",
                                r.driver(),
                                Format.num(r.sectionsPerSecond()),
                                r.timeouts(),
                                r.errors()));
                    } catch (Exception | Error e) {
                        failures.put(name + " (processes)", e.toString());
                        progress("handoff " + name + " over processes FAILED: " + e);
                    }
                }
            }
            printHandoff(cfg, results, failures);
        }
        System.out.println("drivers");
        descriptions.forEach((k, v) -> System.out.println("  " + k + ": " + v));
        System.out.println();
        long latches = admin.countKeys("redisson_unlock_latch:*");
        System.out.println("dbsize at end: " + admin.dbsize()
                + (latches > 0
                        ? " (" + latches + " of them redisson_unlock_latch:* keys, which expire by themselves)"
                        : ""));
        return 0;
    }

    private static void progress(String s) {
        System.out.println("# " + s);
        System.out.flush();
    }

    private static void printPairs(
            BenchConfig cfg,
            List<UncontendedPairs.Result> results,
            List<Baseline.Result> baseline,
            Map<String, String> failures) {
        System.out.println();
        System.out.println("== Scenario A: UncontendedPairs (each thread: tryLock+unlock on its own key; "
                + cfg.pairsDuration.toMillis() / 1000.0 + " s after " + cfg.warmup.toMillis() / 1000.0
                + " s warm-up) ==");
        Format.Table t = new Format.Table(
                "driver",
                "threads",
                "pairs/s",
                "p50 us",
                "p99 us",
                "p99.9 us",
                "errors",
                "not-acq",
                "cmds/pair",
                "scripts/pair",
                "client us/pair",
                "server us/pair",
                "vs vb SET",
                "held after",
                "keys after");
        String last = null;
        for (UncontendedPairs.Result r : results) {
            if (last != null && !last.equals(r.driver())) {
                t.separator();
            }
            last = r.driver();
            long total = ValkeyAdmin.total(r.commands());
            Baseline.Result vb = baseline.stream()
                    .filter(b -> b.clients() == r.threads())
                    .findFirst()
                    .orElse(null);
            String ratio = vb == null || Double.isNaN(vb.requestsPerSecond())
                    ? "-"
                    : String.format(Locale.ROOT, "%.0f%%", 100.0 * r.pairsPerSecond() / vb.requestsPerSecond());
            t.row(
                    r.driver(),
                    r.threads(),
                    Format.num(r.pairsPerSecond()),
                    r.pairs() == 0 ? "-" : Format.micros(r.latency().getValueAtPercentile(50)),
                    r.pairs() == 0 ? "-" : Format.micros(r.latency().getValueAtPercentile(99)),
                    r.pairs() == 0 ? "-" : Format.micros(r.latency().getValueAtPercentile(99.9)),
                    r.errors(),
                    r.notAcquired(),
                    r.pairs() == 0 ? "-" : Format.num((double) total / r.pairs()),
                    r.pairs() == 0 ? "-" : Format.num((double) ValkeyAdmin.scripts(r.commands()) / r.pairs()),
                    Format.num(r.measured().cpu().clientMicrosPer(r.pairs())),
                    Format.num(r.measured().cpu().serverMicrosPer(r.pairs())),
                    ratio,
                    r.leftovers().held(),
                    r.leftovers().keys());
        }
        if (!baseline.isEmpty()) {
            t.separator();
            for (Baseline.Result b : baseline) {
                t.row(
                        "valkey-benchmark SET",
                        b.clients(),
                        Format.num(b.requestsPerSecond()) + " SET/s",
                        Double.isNaN(b.p50Millis()) ? "-" : Format.num(b.p50Millis() * 1000),
                        "",
                        "",
                        b.error() == null ? "" : "ERR",
                        "",
                        "1",
                        "0",
                        "",
                        "",
                        "100%",
                        "",
                        "");
            }
        }
        System.out.print(t.render());
        System.out.println(
                "  pairs/s: successful acquire+release pairs per second, all threads; latency = one pair, client side.");
        System.out.println("  not-acq: tryLock on the thread's own free key returned 'not acquired' (should be 0).");
        System.out.println(
                "  cmds/pair: server-side commands per pair from INFO commandstats (INCLUDES commands run inside Lua scripts);");
        System.out.println(
                "  scripts/pair: EVAL/EVALSHA calls per pair. vs vb SET: pairs/s divided by valkey-benchmark SET/s at -c = threads");
        System.out.println("  (a lock needing 2 round trips per pair tops out near 50%).");
        System.out.println(
                "  held after: the run's keys still locked after all threads finished (probed with tryLock; = locks not released, must be 0).");
        System.out.println(
                "  keys after: keys left in Valkey under the run's prefix (lock keys + library bookkeeping such as Redisson unlock latches).");
        System.out.println(
                "  client us/pair: CPU of this JVM's threads in the window (/proc/self/task) without the JIT compiler threads,");
        System.out.println("  per pair; server us/pair: valkey-server's CPU (INFO cpu) per pair.");
        for (UncontendedPairs.Result r : results) {
            if (r.pairs() > 0) {
                System.out.println("  commands per pair, " + r.driver() + " threads=" + r.threads() + ": "
                        + perUnit(r.commands(), r.pairs()));
            }
        }
        for (UncontendedPairs.Result r : results) {
            printCpu(r.driver() + " threads=" + r.threads(), r.measured(), r.pairs());
            if (r.firstError() != null) {
                System.out.println("  first error, " + r.driver() + " threads=" + r.threads() + ": " + r.firstError());
            }
        }
        for (Baseline.Result b : baseline) {
            if (b.error() != null) {
                System.out.println("  valkey-benchmark -c " + b.clients() + " failed: " + b.error());
            }
        }
        failures.forEach((k, v) -> System.out.println("  driver " + k + " FAILED: " + v));
        System.out.println();
    }

    private static void printHandoff(
            BenchConfig cfg, List<ContendedHandoff.Result> results, Map<String, String> failures) {
        System.out.println();
        System.out.println("== Scenario B: ContendedHandoff (" + cfg.handoffThreads + " threads, one key, hold "
                + Format.ms(cfg.hold) + ", lock() wait " + Format.ms(cfg.wait) + "; "
                + cfg.handoffDuration.toMillis() / 1000.0
                + " s after " + cfg.warmup.toMillis() / 1000.0 + " s warm-up) ==");
        Format.Table t = new Format.Table(
                "driver",
                "threads",
                "sections/s",
                "held us",
                "of held ideal",
                "timeouts",
                "errors",
                "gap p50 us",
                "gap p99 us",
                "min/thread",
                "max/thread",
                "re-grabs",
                "overlaps",
                "cmds/section",
                "scripts/section",
                "client us/section",
                "server us/section",
                "held after",
                "keys after");
        for (ContendedHandoff.Result r : results) {
            long total = ValkeyAdmin.total(r.commands());
            t.row(
                    r.driver(),
                    r.threads(),
                    Format.num(r.sectionsPerSecond()),
                    Format.num(r.meanHeldMicros()),
                    r.sections() == 0
                            ? "-"
                            : String.format("%.1f%%", 100 * r.sectionsPerSecond() * r.meanHeldMicros() / 1e6),
                    r.timeouts(),
                    r.errors(),
                    r.gap().getTotalCount() == 0 ? "-" : Format.micros(r.gap().getValueAtPercentile(50)),
                    r.gap().getTotalCount() == 0 ? "-" : Format.micros(r.gap().getValueAtPercentile(99)),
                    r.minPerThread(),
                    r.maxPerThread(),
                    r.regrabs(),
                    r.violations(),
                    r.sections() == 0 ? "-" : Format.num((double) total / r.sections()),
                    r.sections() == 0 ? "-" : Format.num((double) ValkeyAdmin.scripts(r.commands()) / r.sections()),
                    Format.num(r.measured().cpu().clientMicrosPer(r.sections())),
                    Format.num(r.measured().cpu().serverMicrosPer(r.sections())),
                    r.leftovers().held(),
                    r.leftovers().keys());
        }
        double ideal = 1e9 / Math.max(1, cfg.hold.toNanos());
        System.out.print(t.render());
        System.out.println("  sections/s: critical sections entered per second (ceiling with zero hand-off cost: "
                + Format.num(ideal) + "/s). timeouts: lock() returned null after the wait.");
        System.out.println(
                "  held us: mean time inside a section, lock() returned to unlock() called: the hold plus the"
                        + " harness's timer overshoot, alike for every driver. of held ideal: sections/s against 1 / held.");
        System.out.println(
                "  gap: from holder N calling unlock to holder N+1's lock() returning. min/max/thread: sections per thread (fairness).");
        System.out.println(
                "  re-grabs: the releasing thread got the lock again right away although others were waiting.");
        System.out.println(
                "  overlaps: two holders inside the critical section at once (must be 0). held after / keys after: as in scenario A.");
        System.out.println(
                "  cmds/section: all server-side commands (INFO commandstats delta, INCLUDES commands inside Lua) / sections.");
        for (ContendedHandoff.Result r : results) {
            long total = ValkeyAdmin.total(r.commands());
            System.out.println("  commandstats delta, " + r.driver() + ": " + ValkeyAdmin.describe(r.commands())
                    + "  | total=" + total + " sections=" + r.sections()
                    + " total/section=" + (r.sections() == 0 ? "-" : Format.num((double) total / r.sections())));
            if (r.firstError() != null) {
                System.out.println("  first error, " + r.driver() + ": " + r.firstError());
            }
        }
        for (ContendedHandoff.Result r : results) {
            printCpu(r.driver(), r.measured(), r.sections());
        }
        failures.forEach((k, v) -> System.out.println("  driver " + k + " FAILED: " + v));
        System.out.println();
    }

    /** The options a hand-off child process needs to run like this process (its driver and threads are added). */
    private static String[] childArgs(BenchConfig cfg) {
        return new String[] {
            "--host",
            cfg.host(),
            "--port",
            Integer.toString(cfg.port()),
            "--hold-ms",
            Double.toString(cfg.hold.toNanos() / 1e6),
            "--wait-ms",
            Long.toString(cfg.wait.toMillis()),
            "--ttl-ms",
            Long.toString(cfg.ttl.toMillis()),
            "--timeout-ms",
            Long.toString(cfg.requestTimeout.toMillis()),
            "--poll-ms",
            Double.toString(cfg.poll.toNanos() / 1e6)
        };
    }

    /** Client CPU by thread group per unit and the JIT's share. */
    static void printCpu(String row, Window.Measured m, long units) {
        if (units == 0) {
            return;
        }
        System.out.println(
                "  client CPU us per unit by thread, " + row + ": " + m.cpu().perUnit(units) + "  (JIT "
                        + Format.num(m.cpu().jitSeconds() * 1e6 / units) + " not counted)");
    }

    private static String perUnit(Map<String, Long> commands, long units) {
        StringBuilder sb = new StringBuilder();
        commands.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .forEach(e -> sb.append(sb.length() == 0 ? "" : " ")
                        .append(e.getKey())
                        .append('=')
                        .append(Format.num((double) e.getValue() / units)));
        return sb + "  (total " + Format.num((double) ValkeyAdmin.total(commands) / units) + ")";
    }
}
