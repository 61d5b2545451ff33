package dev.tenure.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.redis.spring.RedisLockProvider;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * ShedLock's Spring Data Redis provider over Lettuce: {@code lockProvider.lock(new LockConfiguration(now, name,
 * lockAtMostFor, 0))} ({@code SET NX PX}) and {@code SimpleLock.unlock()}. Unlock is an unconditional {@code DEL}
 * (the default, {@code safeUpdate(false)}). ShedLock never waits ("skip if locked"), so the waiting acquire polls at a fixed interval.
 */
public final class ShedLockDriver implements LockDriver {

    private final LettuceConnectionFactory factory;
    private final RedisLockProvider provider;
    private final Duration poll;

    public ShedLockDriver(BenchConfig cfg) {
        this.factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(cfg.host(), cfg.port()),
                LettuceClientConfiguration.builder()
                        .commandTimeout(cfg.requestTimeout())
                        .clientName("bench-shedlock")
                        .build());
        factory.afterPropertiesSet();
        factory.start();
        this.provider = new RedisLockProvider.Builder(factory)
                .keyPrefix(cfg.keyPrefix(name()))
                .environment("bench")
                .safeUpdate(false)
                .build();
        this.poll = cfg.poll();
    }

    @Override
    public String name() {
        return "shedlock";
    }

    @Override
    public String describe() {
        return "ShedLock RedisLockProvider (spring-data-redis/Lettuce), unlock = plain DEL; wait = poll every "
                + Format.ms(poll) + "; 1 provider shared";
    }

    @Override
    public Handle tryLock(String key, Duration ttl) {
        Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), key, ttl, Duration.ZERO));
        return lock.map(l -> new Handle(key, l)).orElse(null);
    }

    @Override
    public Handle lock(String key, Duration wait, Duration ttl) throws Exception {
        return Poll.until(() -> tryLock(key, ttl), wait, poll);
    }

    @Override
    public void unlock(Handle h) {
        ((SimpleLock) h.state()).unlock();
    }

    @Override
    public void close() {
        factory.destroy();
    }
}
