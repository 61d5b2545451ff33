package dev.tenure.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * One process of the multi-process hand-off ({@link MultiProcessHandoff}): {@code --handoff-threads} threads of one
 * driver contend for the run's one key, like {@link ContendedHandoff}'s threads. Protocol on stdin/stdout: prints
 * {@code READY} after each thread's untimed priming acquisition, reads {@code GO <warmEnd> <end>} (System.nanoTime
 * values, which are one clock for all processes of a Linux machine), runs, writes every measured section
 * ({@code thread acquiredAt releaseAt}) and per-thread counts to {@code --out}, prints {@code DONE} and waits for
 * {@code EXIT}, so the parent can read its CPU time while it still exists.
 */
public final class HandoffChild {

    private HandoffChild() {}

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>();
        String out = null;
        String name = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--out")) {
                out = args[++i];
            } else if (args[i].equals("--child-name")) {
                name = args[++i];
            } else {
                rest.add(args[i]);
            }
        }
        BenchConfig cfg = BenchConfig.parse(rest.toArray(String[]::new));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (LockDriver driver = Drivers.create(cfg.drivers.get(0), cfg)) {
            int threads = cfg.handoffThreads;
            long[] sections = new long[threads];
            long[] timeouts = new long[threads];
            long[] errors = new long[threads];
            List<List<long[]>> log = new ArrayList<>();
            CountDownLatch ready = new CountDownLatch(threads);
            CountDownLatch go = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(threads);
            long[] window = new long[2];
            for (int t = 0; t < threads; t++) {
                List<long[]> mine = new ArrayList<>();
                log.add(mine);
                int me = t;
                Thread th = new Thread(
                        () -> {
                            try {
                                LockDriver.Handle h = driver.lock("handoff", cfg.wait, cfg.ttl);
                                if (h != null) {
                                    driver.unlock(h);
                                }
                                ready.countDown();
                                go.await();
                                loop(driver, cfg, window[0], window[1], me, mine, sections, timeouts, errors);
                            } catch (Exception e) {
                                errors[me]++;
                            } finally {
                                done.countDown();
                            }
                        },
                        name + "-" + t);
                th.setDaemon(true);
                th.start();
            }
            ready.await();
            System.out.println("READY");
            System.out.flush();
            String[] g = in.readLine().trim().split(" ");
            window[0] = Long.parseLong(g[1]);
            window[1] = Long.parseLong(g[2]);
            go.countDown();
            done.await();
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(out)))) {
                for (int t = 0; t < threads; t++) {
                    w.println("T " + t + " " + sections[t] + " " + timeouts[t] + " " + errors[t]);
                    for (long[] s : log.get(t)) {
                        w.println("S " + t + " " + s[0] + " " + s[1]);
                    }
                }
            }
            System.out.println("DONE");
            System.out.flush();
            in.readLine(); // EXIT
        }
        System.exit(0);
    }

    private static void loop(
            LockDriver driver,
            BenchConfig cfg,
            long warmEnd,
            long end,
            int me,
            List<long[]> mine,
            long[] sections,
            long[] timeouts,
            long[] errors) {
        long hold = cfg.hold.toNanos();
        while (System.nanoTime() < end) {
            long askedAt = System.nanoTime();
            LockDriver.Handle h;
            try {
                h = driver.lock("handoff", cfg.wait, cfg.ttl);
            } catch (Exception e) {
                if (askedAt >= warmEnd) {
                    errors[me]++;
                }
                Poll.sleepNanos(1_000_000L);
                continue;
            }
            long acquiredAt = System.nanoTime();
            if (h == null) {
                if (askedAt >= warmEnd) {
                    timeouts[me]++;
                }
                continue;
            }
            Poll.sleepNanos(hold);
            long releaseAt = System.nanoTime();
            boolean measured = acquiredAt >= warmEnd && acquiredAt < end;
            if (measured) {
                sections[me]++;
                mine.add(new long[] {acquiredAt, releaseAt});
            }
            try {
                driver.unlock(h);
            } catch (Exception e) {
                if (measured) {
                    errors[me]++;
                }
            }
        }
    }
}
