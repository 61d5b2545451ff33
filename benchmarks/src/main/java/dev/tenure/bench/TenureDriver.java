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
    private final String name;
    private final int inFlight;
    private final int clients;

    public TenureDriver(BenchConfig cfg) {
        this(cfg, "tenure", Integer.getInteger("tenure.inflight", 2));
    }

    /** A variant with {@code inFlight} script calls in flight at once ({@code ValkeyConfig.maxInFlightBatches}). */
    public TenureDriver(BenchConfig cfg, String name, int inFlight) {
        this(cfg, name, inFlight, 1);
    }

    /** A variant with {@code clients} GLIDE clients ({@code ValkeyConfig.clients}), each with {@code inFlight} calls in flight. */
    public TenureDriver(BenchConfig cfg, String name, int inFlight, int clients) {
        this.name = name;
        this.inFlight = inFlight;
        this.clients = clients;
        // -Dtenure.localHandOffs=N and -Dtenure.maxTurnMillis=M (through JAVA_OPTS) change Leases.Builder's
        // maxLocalHandOffs and maxTurn for experiments; unset, the builder's defaults apply
        Leases.Builder b = Leases.builder(new GlideBackend()
                .open(ValkeyConfig.standalone(cfg.host() + ":" + cfg.port())
                        .requestTimeout(cfg.requestTimeout())
                        .clientName("bench-" + name)
                        .maxInFlightBatches(inFlight)
                        .clients(clients)
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
        return name;
    }

    @Override
    public String describe() {
        return "Tenure Leases over ValkeyLeaseStore (owner-checked script ops coalesced per call, " + clients
                + " GLIDE client(s) with " + inFlight
                + " call(s) in flight each, watchdog on, FIFO hand-off in-process)";
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
