package dev.tenure.bench;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.Lock;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * Spring Integration {@link RedisLockRegistry} over a {@link LettuceConnectionFactory} (one shared native
 * connection): {@code registry.obtain(key).tryLock(wait, ttl)} / {@code unlock()}.
 *
 * <p>The registry guards each key with a JVM-local ReentrantLock before touching Valkey and owns locks per
 * registry (not per thread). With one registry shared by all threads, contention between threads is therefore
 * settled in the JVM, not in Valkey. To model separate instances contending in Valkey, each benchmark thread gets
 * its own registry (same registry key, same connection factory).
 */
public final class SpringIntegrationDriver implements LockDriver {

    private final LettuceConnectionFactory factory;
    private final String registryKey;
    private final ThreadLocal<RedisLockRegistry> perThread;
    private final List<RedisLockRegistry> registries = new CopyOnWriteArrayList<>();

    public SpringIntegrationDriver(BenchConfig cfg) {
        this.factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(cfg.host(), cfg.port()),
                LettuceClientConfiguration.builder()
                        .commandTimeout(cfg.requestTimeout())
                        .clientName("bench-spring")
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        this.registryKey = cfg.keyPrefix(name());
        this.perThread = ThreadLocal.withInitial(this::newRegistry);
    }

    /** The library's defaults: SPIN_LOCK, 100 ms between tries. */
    private RedisLockRegistry newRegistry() {
        RedisLockRegistry r = new RedisLockRegistry(factory, registryKey, Duration.ofSeconds(60));
        registries.add(r);
        return r;
    }

    private RedisLockRegistry registry() {
        return perThread.get();
    }

    @Override
    public String name() {
        return "spring";
    }

    @Override
    public String describe() {
        return "Spring Integration RedisLockRegistry, default SPIN_LOCK (retry every 100 ms), one registry per thread (= per instance), shared Lettuce connection";
    }

    @Override
    public Handle tryLock(String key, Duration ttl) throws Exception {
        DistributedLock lock = registry().obtain(key);
        return lock.tryLock(Duration.ZERO, ttl) ? new Handle(key, lock) : null;
    }

    @Override
    public Handle lock(String key, Duration wait, Duration ttl) throws Exception {
        DistributedLock lock = registry().obtain(key);
        return lock.tryLock(wait, ttl) ? new Handle(key, lock) : null;
    }

    @Override
    public void unlock(Handle h) {
        ((Lock) h.state()).unlock();
    }

    @Override
    public void close() {
        for (RedisLockRegistry r : registries) {
            try {
                r.destroy();
            } catch (RuntimeException ignored) {
                // best effort
            }
        }
        factory.destroy();
    }
}
