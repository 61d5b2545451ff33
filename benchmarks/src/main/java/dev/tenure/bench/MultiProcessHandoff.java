package dev.tenure.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Scenario B across processes: {@code --handoff-processes} child JVMs ({@link HandoffChild}), each with its own client
 * and {@code handoffThreads / processes} threads, contend for one key, as independent instances of a service would.
 * Sections, timeouts and fairness are counted per thread across all processes; overlaps and hand-off gaps come from
 * the merged section log (System.nanoTime is one clock for every process of the machine); client CPU is every child's
 * threads, read from /proc while the children still exist.
 */
final class MultiProcessHandoff {

    private MultiProcessHandoff() {}

    static ContendedHandoff.Result run(String driver, ValkeyAdmin admin, BenchConfig cfg, String[] baseArgs)
            throws Exception {
        int processes = cfg.handoffProcesses;
        int perProcess = Math.max(1, cfg.handoffThreads / processes);
        Path dir = Files.createTempDirectory("tenure-handoff");
        List<Process> children = new ArrayList<>();
        List<BufferedReader> outs = new ArrayList<>();
        List<Long> pids = new ArrayList<>();
        try {
            for (int p = 0; p < processes; p++) {
                List<String> cmd = new ArrayList<>(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m"));
                for (String experiment : List.of(
                        "tenure.localHandOffs", "tenure.maxTurnMillis", "tenure.inflight")) { // the driver's -D knobs
                    if (System.getProperty(experiment) != null) {
                        cmd.add("-D" + experiment + "=" + System.getProperty(experiment));
                    }
                }
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), HandoffChild.class.getName()));
                cmd.addAll(List.of(baseArgs));
                cmd.addAll(List.of(
                        "--drivers",
                        driver,
                        "--handoff-threads",
                        Integer.toString(perProcess),
                        "--run-id",
                        cfg.runId,
                        "--child-name",
                        "p" + p,
                        "--out",
                        dir.resolve("p" + p).toString()));
                Process proc = new ProcessBuilder(cmd)
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
                children.add(proc);
                pids.add(proc.pid());
                outs.add(new BufferedReader(new InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8)));
            }
            for (BufferedReader r : outs) {
                expect(r, "READY");
            }
            long warmEnd = System.nanoTime() + cfg.warmup.toNanos();
            long end = warmEnd + cfg.handoffDuration.toNanos();
            for (Process proc : children) {
                send(proc, "GO " + warmEnd + " " + end);
            }
            Poll.sleepNanos(warmEnd - System.nanoTime());
            Map<String, Long> before = admin.commandCalls();
            CpuWindow cpu = CpuWindow.start(admin, pids);
            Poll.sleepNanos(end - System.nanoTime());
            CpuWindow.Usage usage = cpu.stop(admin);
            Map<String, Long> commands = ValkeyAdmin.delta(before, admin.commandCalls());
            for (BufferedReader r : outs) {
                expect(r, "DONE");
            }
            for (Process proc : children) {
                send(proc, "EXIT");
            }
            return collect(
                    driver + " " + processes + "x" + perProcess,
                    cfg,
                    dir,
                    processes,
                    new Window.Measured(commands, usage),
                    admin);
        } finally {
            for (Process proc : children) {
                if (!proc.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                    proc.destroyForcibly();
                }
            }
        }
    }

    private static ContendedHandoff.Result collect(
            String name, BenchConfig cfg, Path dir, int processes, Window.Measured measured, ValkeyAdmin admin)
            throws Exception {
        List<long[]> sections = new ArrayList<>(); // acquiredAt, releaseAt, thread id
        List<Long> perThread = new ArrayList<>();
        long timeouts = 0;
        long errors = 0;
        for (int p = 0; p < processes; p++) {
            for (String line : Files.readAllLines(dir.resolve("p" + p))) {
                String[] f = line.split(" ");
                if (f[0].equals("T")) {
                    perThread.add(Long.parseLong(f[2]));
                    timeouts += Long.parseLong(f[3]);
                    errors += Long.parseLong(f[4]);
                } else {
                    sections.add(
                            new long[] {Long.parseLong(f[2]), Long.parseLong(f[3]), p * 1000L + Long.parseLong(f[1])});
                }
            }
        }
        sections.sort((a, b) -> Long.compare(a[0], b[0]));
        Histogram gap = new Histogram(60_000_000_000L, 3);
        long overlaps = 0;
        long regrabs = 0;
        long heldNanos = sections.stream().mapToLong(sec -> sec[1] - sec[0]).sum();
        // the gaps split by where the next holder runs: in the releaser's process, or in another one (a turn passed)
        Histogram localGap = new Histogram(60_000_000_000L, 3);
        Histogram crossGap = new Histogram(60_000_000_000L, 3);
        for (int i = 1; i < sections.size(); i++) {
            long[] prev = sections.get(i - 1);
            long[] cur = sections.get(i);
            if (cur[0] < prev[1]) {
                overlaps++;
            } else {
                long g = Math.min(cur[0] - prev[1], gap.getHighestTrackableValue());
                gap.recordValue(g);
                (cur[2] / 1000 == prev[2] / 1000 ? localGap : crossGap).recordValue(g);
            }
            if (cur[2] == prev[2]) {
                regrabs++;
            }
        }
        System.out.printf(
                Locale.ROOT,
                "%s gaps: %d in one process %s, %d across processes %s: %.1f%% of the window" + " between holders%n",
                name,
                localGap.getTotalCount(),
                ContendedHandoff.gapSummary(localGap),
                crossGap.getTotalCount(),
                ContendedHandoff.gapSummary(crossGap),
                ContendedHandoff.gapShareOfWindow(gap, cfg.handoffDuration));
        long total = perThread.stream().mapToLong(Long::longValue).sum();
        long min = perThread.stream().mapToLong(Long::longValue).min().orElse(0);
        long max = perThread.stream().mapToLong(Long::longValue).max().orElse(0);
        long keys = admin.countKeys("*" + cfg.keyPrefix(cfg.drivers.isEmpty() ? "" : name.split(" ")[0]) + ":handoff*");
        return new ContendedHandoff.Result(
                name,
                perThread.size(),
                total,
                cfg.handoffDuration.toNanos() / 1e9,
                gap,
                timeouts,
                errors,
                null,
                min,
                max,
                regrabs,
                overlaps,
                measured,
                new Leftovers(-1, keys),
                heldNanos);
    }

    private static void expect(BufferedReader r, String word) throws Exception {
        String line;
        while ((line = r.readLine()) != null) {
            if (line.trim().equals(word)) {
                return;
            }
        }
        throw new IllegalStateException("a child process ended before " + word);
    }

    private static void send(Process p, String line) {
        PrintWriter w = new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8);
        w.println(line);
    }
}
