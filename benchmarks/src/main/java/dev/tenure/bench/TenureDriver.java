package dev.tenure.bench;

import java.time.Duration;

/**
 * Tenure's lock under the benchmark. PLACEHOLDER: to be filled in by the coordinator-core author with Tenure's API,
 * then registered in {@link Drivers#all()} (and {@link Drivers#DEFAULT}).
 *
 * <p>Contract (see {@link LockDriver}): create the client(s) in the constructor, once per scenario; prefix every key
 * with {@code cfg.keyPrefix(name())}; {@code tryLock} = one non-blocking attempt; {@code lock} = wait up to
 * {@code wait} (null on timeout); {@code unlock} throws if the lease was no longer held; {@code close} closes clients.
 */
public final class TenureDriver implements LockDriver {

    public TenureDriver(BenchConfig cfg) {
        throw new UnsupportedOperationException("filled in by core author");
    }

    @Override
    public String name() {
        return "tenure";
    }

    @Override
    public Handle tryLock(String key, Duration ttl) {
        throw new UnsupportedOperationException("filled in by core author");
    }

    @Override
    public Handle lock(String key, Duration wait, Duration ttl) {
        throw new UnsupportedOperationException("filled in by core author");
    }

    @Override
    public void unlock(Handle handle) {
        throw new UnsupportedOperationException("filled in by core author");
    }

    @Override
    public void close() {
    }
}
