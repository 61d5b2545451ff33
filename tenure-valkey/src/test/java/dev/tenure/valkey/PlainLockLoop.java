package dev.tenure.valkey;

import dev.tenure.Lease;
import dev.tenure.Leases;
import dev.tenure.ValkeyConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ForkJoinPool;

/**
 * {@code <valkey address> <pairs> <linger ms>}: that many uncontended {@code acquire} + {@code release} pairs on one
 * key, then a wait of the release channels' linger and two seconds more. Prints
 * {@code threads parallelism P pairs N during D after A}: the threads this JVM started during the loop (from before the
 * store was created) and after it.
 */
public final class PlainLockLoop {

    public static void main(String[] args) throws Exception {
        String address = args[0];
        int pairs = Integer.parseInt(args[1]);
        Duration linger = Duration.ofMillis(Long.parseLong(args[2]));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long before = threads.getTotalStartedThreadCount();
        int granted = 0;
        long afterLoop;
        try (Leases leases = Leases.of(ValkeyLeaseStore.create(
                ValkeyConfig.standalone(address).releaseChannelLinger(linger).build()))) {
            for (int i = 0; i < pairs; i++) {
                Optional<Lease> lease =
                        leases.acquire("plain-lock-loop", Duration.ofSeconds(2), Duration.ofSeconds(10));
                if (lease.isPresent()) {
                    lease.get().release();
                    granted++;
                }
            }
            afterLoop = threads.getTotalStartedThreadCount();
            Thread.sleep(linger.toMillis() + 2_000);
        }
        long end = threads.getTotalStartedThreadCount();
        System.out.printf(
                "threads parallelism %d pairs %d during %d after %d%n",
                ForkJoinPool.getCommonPoolParallelism(), granted, afterLoop - before, end - afterLoop);
    }
}
