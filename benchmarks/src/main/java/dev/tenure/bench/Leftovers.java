package dev.tenure.bench;

import java.util.List;

/**
 * What a run left behind in Valkey.
 *
 * @param held    logical locks still held after all threads finished: probed by trying to acquire each key used by
 *                the run from a fresh thread (released again at once). A held lock = a lock that was not released.
 * @param keys    keys in Valkey whose name contains the driver's prefix followed by the run's logical key prefix
 *                (lock keys plus library bookkeeping, e.g.
 *                Redisson's {@code redisson_unlock_latch:{...}} keys, which expire by themselves).
 */
record Leftovers(long held, long keys) {

    static Leftovers check(
            LockDriver driver, ValkeyAdmin admin, BenchConfig cfg, List<String> logicalKeys, String logicalPrefix)
            throws Exception {
        Thread.sleep(200); // let fire-and-forget cleanups land
        long keys = admin.countKeys("*" + cfg.keyPrefix(driver.name()) + ":" + logicalPrefix + "*");
        long[] held = {0};
        Thread probe = new Thread(
                () -> {
                    for (String k : logicalKeys) {
                        try {
                            LockDriver.Handle h = driver.tryLock(k, cfg.ttl);
                            if (h == null) {
                                held[0]++;
                            } else {
                                driver.unlock(h);
                            }
                        } catch (Exception | Error e) {
                            held[0]++;
                        }
                    }
                },
                "leftover-probe-" + driver.name());
        probe.setDaemon(true);
        probe.start();
        probe.join(60_000);
        return new Leftovers(held[0], keys);
    }
}
