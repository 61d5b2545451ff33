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
 * settled in the JVM, not in Valkey. To model separate instances contending in Valkey, the per-thread modes
 * give each benchmark thread its own registry (same registry key, same connection factory).
 */
public final class SpringIntegrationDriver implements LockDriver {

    public enum Mode {
        /** Library default lock type (SPIN_LOCK, idleBetweenTries 100 ms); one registry per benchmark thread. */
        SPIN_PER_THREAD,
        /** PUB_SUB_LOCK (documented as preferred outside master/replica); one registry per benchmark thread. */
        PUBSUB_PER_THREAD,
        /** Library defaults; one registry shared by all threads (contention settled by the local ReentrantLock). */
        SPIN_SHARED
    }

    private final String name;
    private final Mode mode;
    private final LettuceConnectionFactory factory;
    private final String registryKey;
    private final RedisLockRegistry shared;
    private final ThreadLocal<RedisLockRegistry> perThread;
    private final List<RedisLockRegistry> registries = new CopyOnWriteArrayList<>();

    public SpringIntegrationDriver(BenchConfig cfg, String name, Mode mode) {
        this.name = name;
        this.mode = mode;
        this.factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(cfg.host(), cfg.port()),
                LettuceClientConfiguration.builder()
                        .commandTimeout(cfg.requestTimeout())
                        .clientName("bench-spring")
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        this.registryKey = cfg.keyPrefix(name);
        this.shared = mode == Mode.SPIN_SHARED ? newRegistry() : null;
        this.perThread = ThreadLocal.withInitial(this::newRegistry);
    }

    private RedisLockRegistry newRegistry() {
        RedisLockRegistry r = new RedisLockRegistry(factory, registryKey, Duration.ofSeconds(60));
        if (mode == Mode.PUBSUB_PER_THREAD) {
            r.setRedisLockType(RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
        }
        registries.add(r);
        return r;
    }

    private RedisLockRegistry registry() {
        return shared != null ? shared : perThread.get();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String describe() {
        return switch (mode) {
            case SPIN_PER_THREAD ->
                "Spring Integration RedisLockRegistry, default SPIN_LOCK (retry every 100 ms), one registry per thread (= per instance), shared Lettuce connection";
            case PUBSUB_PER_THREAD ->
                "Spring Integration RedisLockRegistry, PUB_SUB_LOCK, one registry per thread (= per instance), shared Lettuce connection";
            case SPIN_SHARED ->
                "Spring Integration RedisLockRegistry, default SPIN_LOCK, ONE registry shared by all threads (in-JVM ReentrantLock settles contention)";
        };
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
