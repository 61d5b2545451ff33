package dev.tenure.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson {@code RLock} with an explicit lease time (so no watchdog): {@code tryLock(0, lease)} and
 * {@code tryLock(wait, lease)} (pub/sub wake-up), {@code unlock()}. One RedissonClient with default pools, shared by
 * all threads; lock ownership is per thread ({@code clientUUID:threadId}), so threads contend as separate owners.
 */
public final class RedissonDriver implements LockDriver {

    private final RedissonClient client;
    private final String prefix;

    public RedissonDriver(BenchConfig cfg) {
        Config config = new Config();
        config.useSingleServer()
                .setAddress("redis://" + cfg.host() + ":" + cfg.port())
                .setTimeout((int) cfg.requestTimeout().toMillis())
                .setConnectTimeout((int) cfg.requestTimeout().toMillis())
                .setClientName("bench-redisson");
        this.client = Redisson.create(config);
        this.prefix = cfg.keyPrefix(name()) + ":";
    }

    @Override
    public String name() {
        return "redisson";
    }

    @Override
    public String describe() {
        return "Redisson " + Format.libVersion("redisson")
                + ": RLock.tryLock(wait, lease) / unlock(), default single-server pools; 1 client shared";
    }

    @Override
    public Handle tryLock(String key, Duration ttl) throws Exception {
        RLock lock = client.getLock(prefix + key);
        return lock.tryLock(0, ttl.toMillis(), TimeUnit.MILLISECONDS) ? new Handle(key, lock) : null;
    }

    @Override
    public Handle lock(String key, Duration wait, Duration ttl) throws Exception {
        RLock lock = client.getLock(prefix + key);
        return lock.tryLock(wait.toMillis(), ttl.toMillis(), TimeUnit.MILLISECONDS) ? new Handle(key, lock) : null;
    }

    @Override
    public void unlock(Handle h) {
        ((RLock) h.state()).unlock();
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
