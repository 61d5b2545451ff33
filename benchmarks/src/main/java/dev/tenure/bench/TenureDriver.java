package dev.tenure.bench;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.ReleaseResult;
import dev.tenure.ValkeyConfig;
import dev.tenure.valkey.GlideBackend;
import java.time.Duration;
import java.util.Optional;

/**
 * Tenure's lease under the benchmark: the safe protocol (owner-checked renew and release, watchdog renewal,
 * release notification) through {@link Leases} over the Valkey store ({@code ValkeyLeaseStore}, opened through the
 * {@link GlideBackend} that {@code Tenure} finds with the {@code ServiceLoader}).
 */
public final class TenureDriver implements LockDriver {

    private final Leases leases;
    private final String prefix;
    private final int inFlight;

    public TenureDriver(BenchConfig cfg) {
        // -Dtenure.inflight=N sets ValkeyConfig.maxInFlightBatches (script calls in flight at once; default 2);
        // -Dtenure.localHandOffs=N and -Dtenure.maxTurnMillis=M (through JAVA_OPTS) change Leases.Builder's
        // maxLocalHandOffs and maxTurn for experiments; unset, the builder's defaults apply
        this.inFlight = Integer.getInteger("tenure.inflight", 2);
        Leases.Builder b = Leases.builder(new GlideBackend()
                .open(ValkeyConfig.standalone(cfg.host() + ":" + cfg.port())
                        .requestTimeout(cfg.requestTimeout())
                        .clientName("bench-tenure")
                        .maxInFlightBatches(inFlight)
                        .build()));
        Integer handOffs = Integer.getInteger("tenure.localHandOffs");
        if (handOffs != null) {
            b.maxLocalHandOffs(handOffs);
        }
        Long turn = Long.getLong("tenure.maxTurnMillis");
        if (turn != null) {
            b.maxTurn(Duration.ofMillis(turn));
        }
        this.leases = b.build();
        this.prefix = cfg.keyPrefix(name());
    }

    @Override
    public String name() {
        return "tenure";
    }

    @Override
    public String describe() {
        return "Tenure Leases over ValkeyLeaseStore (owner-checked script ops coalesced per call, 1 GLIDE client with "
                + inFlight + " call(s) in flight, watchdog on, FIFO hand-off in-process)";
    }

    @Override
    public Handle tryLock(String key, Duration ttl) {
        return handle(leases.tryAcquire(prefix + ":" + key, LeaseOptions.ofTtl(ttl)));
    }

    @Override
    public Handle lock(String key, Duration wait, Duration ttl) {
        return handle(leases.acquire(prefix + ":" + key, wait, LeaseOptions.ofTtl(ttl)));
    }

    private static Handle handle(Optional<Lease> lease) {
        return lease.map(l -> new Handle(l.key(), l)).orElse(null);
    }

    @Override
    public void unlock(Handle handle) {
        ReleaseResult r = ((Lease) handle.state()).release();
        if (r != ReleaseResult.RELEASED) {
            throw new IllegalStateException("release of " + handle.key() + " gave " + r);
        }
    }

    @Override
    public void close() {
        leases.close();
    }
}
