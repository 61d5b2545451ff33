package dev.tenure.it;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import dev.tenure.ValkeyConfig;
import dev.tenure.valkey.ValkeyLeaseStore;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In-process hand-off must not starve other processes: two JVMs with four threads each contend for one key
 * (2 ms sections) for a few seconds; each process gets a fair part of the sections.
 */
class CrossProcessFairnessIT {

    /**
     * {@code <address> <threads> <seconds> <start epoch ms>}: contends from the common start instant (so both processes
     * measure the same window, whenever each JVM came up), prints {@code SECTIONS <n>}.
     */
    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[1]);
        AtomicInteger sections = new AtomicInteger();
        try (Leases leases = Leases.of(ValkeyLeaseStore.create(ValkeyConfig.standalone(args[0]).build()))) {
            // warm up (client, script, JIT) on a key of its own; the measured window starts after that
            for (int i = 0; i < 20; i++) {
                leases.tryAcquire("warm-" + ProcessHandle.current().pid()).ifPresent(Lease::release);
            }
            System.out.println("READY");
            Thread.sleep(Math.max(0, Long.parseLong(args[3]) - System.currentTimeMillis()));
            long until = System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[2])).toNanos();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread th = new Thread(() -> {
                    while (System.nanoTime() < until) {
                        Optional<Lease> l = leases.acquire("fair", Duration.ofSeconds(5), LeaseOptions.ofTtl(Duration.ofSeconds(5)));
                        if (l.isPresent()) {
                            LockSupport.parkNanos(2_000_000);
                            sections.incrementAndGet();
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
            int sa = Integer.parseInt(a.awaitStdoutLine(l -> l.startsWith("SECTIONS "), limit).substring(9).trim());
            int sb = Integer.parseInt(b.awaitStdoutLine(l -> l.startsWith("SECTIONS "), limit).substring(9).trim());
            System.out.printf("sections: process A %d, process B %d%n", sa, sb);
            assertThat(sa + sb).isPositive();
            assertThat(Math.min(sa, sb)).as("the smaller share").isGreaterThanOrEqualTo((sa + sb) / 5);
        }
    }
}
