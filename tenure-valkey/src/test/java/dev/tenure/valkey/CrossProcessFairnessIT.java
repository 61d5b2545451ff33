package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * In-process hand-off must not starve other processes: JVMs with four threads each contend for one key (2 ms sections)
 * for a few seconds; each process, and with three processes each thread, gets a fair part of the sections, and the
 * processes take turns through Valkey's queue of waiting processes instead of racing for every freed key.
 */
class CrossProcessFairnessIT {

    /**
     * {@code <address> <threads> <seconds> <start epoch ms>}: contends from the common start instant (so both processes
     * measure the same window, whenever each JVM came up), prints {@code SECTIONS <n>}.
     */
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[1]);
        AtomicInteger sections = new AtomicInteger();
        AtomicIntegerArray perThread = new AtomicIntegerArray(threads);
        try (Leases leases = Leases.of(ValkeyLeaseStore.create(ValkeyConfig.standalone(args[0])
                // the default 500 ms ran out once in the warm-up under two busy loops (the child then exited)
                .requestTimeout(Timing.scaled(Duration.ofSeconds(3)))
                .build()))) {
            // warm up (client, script, JIT) on a key of its own; the measured window starts after that
            for (int i = 0; i < 20; i++) {
                leases.tryAcquire("warm-" + ProcessHandle.current().pid()).ifPresent(Lease::release);
            }
            System.out.println("READY");
            Thread.sleep(Math.max(0, Long.parseLong(args[3]) - System.currentTimeMillis()));
            long until = System.nanoTime()
                    + Duration.ofSeconds(Long.parseLong(args[2])).toNanos(); // unscaled: how long it competes
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                Thread th = new Thread(() -> {
                    while (System.nanoTime() < until) {
                        Optional<Lease> l = leases.acquire(
                                "fair", Duration.ofSeconds(5), LeaseOptions.ofTtl(Duration.ofSeconds(5)));
                        if (l.isPresent()) {
                            LockSupport.parkNanos(2_000_000);
                            sections.incrementAndGet();
                            perThread.incrementAndGet(me);
                            l.get().release();
                        }
                    }
                });
                th.start();
                ts.add(th);
            }
            for (Thread th : ts) {
                th.join();
            }
        }
        System.out.println("THREADS " + perThread);
        System.out.println("SECTIONS " + sections.get());
        System.exit(0);
    }

    @Test
    void twoProcesses_contendForOneKey_bothGetAFairShare() {
        String startAt = Long.toString(System.currentTimeMillis() + Timing.scaledMillis(5000));
        try (ValkeyServer server = ValkeyServers.standalone();
                JvmProcess a = JvmProcess.start(CrossProcessFairnessIT.class, server.address(), "4", "8", startAt);
                JvmProcess b = JvmProcess.start(CrossProcessFairnessIT.class, server.address(), "4", "8", startAt)) {
            Duration limit = Timing.scaled(Duration.ofSeconds(60));
            int sa = Integer.parseInt(a.awaitStdoutLine(l -> l.startsWith("SECTIONS "), limit)
                    .substring(9)
                    .trim());
            int sb = Integer.parseInt(b.awaitStdoutLine(l -> l.startsWith("SECTIONS "), limit)
                    .substring(9)
                    .trim());
            System.out.printf("sections: process A %d, process B %d%n", sa, sb);
            assertThat(sa + sb).isPositive();
            assertThat(Math.min(sa, sb)).as("the smaller share").isGreaterThanOrEqualTo((sa + sb) / 5);
        }
    }

    /**
     * Three processes of four threads: every thread gets at least half the sections of the luckiest one, and the key
     * passes between processes through the queue: at most 3 refused attempts per turn passed (each refused attempt runs
     * one PTTL in the script, each pass one LPOP; commandstats over the window). Before the queue, a yield freed the
     * key for a race that the processes' heads lost 5-6 times per turn, 4 commands each. Server commands per section
     * are bounded too, loosely (6): the benchmark holds the 3 on a quiet machine.
     */
    @Test
    void threeProcesses_takeTurns_everyThreadGetsAFairShare_fewRefusedAttemptsPerTurn() throws Exception {
        String startAt = Long.toString(System.currentTimeMillis() + Timing.scaledMillis(6000));
        try (ValkeyServer server = ValkeyServers.standalone()) {
            List<JvmProcess> ps = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    ps.add(JvmProcess.start(CrossProcessFairnessIT.class, server.address(), "4", "6", startAt));
                }
                Duration limit = Timing.scaled(Duration.ofSeconds(60));
                for (JvmProcess p : ps) {
                    p.awaitStdoutLine("READY"::equals, limit);
                }
                Map<String, Long> before = server.commandCalls();
                List<Integer> threads = new ArrayList<>();
                int total = 0;
                for (JvmProcess p : ps) {
                    String line = p.awaitStdoutLine(l -> l.startsWith("THREADS "), limit);
                    for (String n :
                            line.substring(8).replaceAll("[\\[\\] ]", "").split(",")) {
                        threads.add(Integer.parseInt(n));
                    }
                    total += Integer.parseInt(p.awaitStdoutLine(l -> l.startsWith("SECTIONS "), limit)
                            .substring(9)
                            .trim());
                }
                Map<String, Long> commands = delta(before, server.commandCalls());
                double perSection = (double) commands.values().stream()
                                .mapToLong(Long::longValue)
                                .sum()
                        / total;
                int min = threads.stream().mapToInt(Integer::intValue).min().orElseThrow();
                int max = threads.stream().mapToInt(Integer::intValue).max().orElseThrow();
                long passes = commands.getOrDefault("lpop", 0L);
                long refused = commands.getOrDefault("pttl", 0L);
                System.out.printf(
                        "3 processes x 4 threads: %d sections, per thread %s (min/max %.2f), %d turns passed, %d refused"
                                + " attempts, %.2f server commands per section %s%n",
                        total, threads, (double) min / max, passes, refused, perSection, commands);
                assertThat(threads).hasSize(12);
                assertThat(total).as("sections in 6 s of 2 ms sections").isGreaterThan(300);
                assertThat(min)
                        .as("the unluckiest thread's sections, against the luckiest's " + max)
                        .isGreaterThanOrEqualTo(max / 2);
                assertThat(passes)
                        .as("turns passed between processes " + commands)
                        .isPositive();
                // Refused attempts grow when notified heads wake late on a loaded machine: 0.5 per turn alone, 1.8 in
                // the parallel suite's worst run so far; the racing yields before the queue lost 5-6 per turn.
                assertThat((double) refused / passes)
                        .as("refused attempts per turn passed " + commands)
                        .isLessThanOrEqualTo(3.0);
                // Commands per section move with the load even more (fewer sections, the same background polls): 2.33
                // alone, 2.51-3.29 inside the parallel suite, 4.13 in it under two busy loops. The benchmark measures
                // the target (<= 3) on a quiet machine (2.25 over 4 processes). This bound only catches a hand-off
                // that polls: the refused attempts per turn above are the claim.
                assertThat(perSection)
                        .as("server commands per section " + commands)
                        .isLessThanOrEqualTo(6.0);
            } finally {
                for (JvmProcess p : ps) {
                    p.close();
                }
            }
        }
    }

    /** {@code after - before}, per command, without the zeros. */
    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new TreeMap<>();
        after.forEach((cmd, n) -> {
            long x = n - before.getOrDefault(cmd, 0L);
            if (x != 0) {
                d.put(cmd, x);
            }
        });
        return d;
    }
}
