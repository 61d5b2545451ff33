package dev.tenure;

import dev.tenure.spi.RunLedger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Leader election for standalone workers on the coordinator's protocol: the Valkey lease filters the
 * candidates, the database lease decides, and its epoch is the term. Either lease lost = leadership revoked
 * (callback), then the election campaigns again without restarting the process. {@link #stop()} resigns:
 * releases the database lease and then the Valkey lease, so a waiting candidate (woken by the release
 * notifications) takes over at once. While Valkey is unreachable the database alone decides (as the
 * coordinator's fallback: the database lease is authoritative in every mode, so there are never two leaders
 * with live terms). Thread-safe; one thread per election.
 */
public final class CoordinatedLeaderElection implements LeaderElection {

    private static final Logger LOG = LoggerFactory.getLogger(CoordinatedLeaderElection.class);

    private final String name;
    private final Leases database;
    private final Leases valkey;
    private final RunLedger ledger;
    private final LeaseOptions options;
    private final Listener listener;
    private final CircuitBreaker breaker = new CircuitBreaker(2, Duration.ofSeconds(5), Ticker.system());
    private final Semaphore wake = new Semaphore(0);
    private final String participant = java.util.UUID.randomUUID().toString();
    private volatile boolean running;
    private volatile Thread thread;
    private volatile Lease term;

    /**
     * @param valkey  Valkey leases, or null for the database alone
     * @param ledger  the run ledger of the same database (for {@link #currentLeader()})
     * @param options lease TTL and renewal (the database lease's epoch is the term)
     */
    public CoordinatedLeaderElection(String name, Leases database, Leases valkey, RunLedger ledger, LeaseOptions options,
                                     Listener listener) {
        this.name = dev.tenure.spi.LeaseKeys.validate(name);
        this.database = Objects.requireNonNull(database, "database");
        this.valkey = valkey;
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.options = Objects.requireNonNull(options, "options");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String participantId() {
        return participant;
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        thread = new Thread(this::campaign, "tenure-election-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void stop() {
        Thread t;
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            t = thread;
        }
        wake.release();
        try {
            t.join(options.ttl().toMillis() * 2 + 5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isLeader() {
        Lease t = term;
        return t != null && t.isValid();
    }

    @Override
    public OptionalLong term() {
        Lease t = term;
        return t != null && t.isValid() ? t.fencingToken() : OptionalLong.empty();
    }

    @Override
    public Optional<Leader> currentLeader() {
        return ledger.holder(name);
    }

    private void campaign() {
        while (running) {
            Lease filter = null;
            Lease db = null;
            try {
                filter = filter();
                if (filter == null && !breaker.isOpen() && valkey != null) {
                    continue; // held elsewhere (waited a TTL); try again
                }
                Optional<Lease> d = database.acquire(name, options.ttl(), options.withFencingToken(true));
                if (d.isEmpty()) {
                    continue;
                }
                db = d.get();
                lead(db, filter);
            } catch (LeaseStoreUnavailableException e) {
                LOG.warn("election '{}': lease store unavailable ({}); retrying", name, e.getMessage());
                pause(options.renewEvery());
            } catch (RuntimeException e) {
                LOG.error("election '{}' failed; retrying", name, e);
                pause(options.renewEvery());
            } finally {
                term = null;
                if (db != null) {
                    db.release();
                }
                if (filter != null) {
                    filter.release();
                }
            }
        }
    }

    /** The Valkey lease, or null when held elsewhere or when Valkey is unreachable (then the database decides alone). */
    private Lease filter() {
        if (valkey == null || breaker.isOpen()) {
            return null;
        }
        try {
            Optional<Lease> v = valkey.acquire(name, options.ttl(), options);
            breaker.success();
            return v.orElse(null);
        } catch (LeaseStoreUnavailableException e) {
            breaker.failure();
            return null;
        }
    }

    private void lead(Lease db, Lease filter) {
        wake.drainPermits();
        db.onLost(l -> wake.release());
        if (filter != null) {
            filter.onLost(l -> wake.release());
        }
        term = db;
        long epoch = db.fencingToken().orElseThrow();
        callback(() -> listener.elected(epoch));
        String reason = "stopped";
        while (running) {
            try {
                wake.tryAcquire(options.renewEvery().toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reason = "interrupted";
                break;
            }
            if (!db.isValid()) {
                reason = "database lease lost (" + db.state() + ")";
                break;
            }
            if (filter != null && filter.state() == LeaseState.LOST) {
                reason = "Valkey lease lost";
                break;
            }
        }
        term = null;
        String why = reason;
        callback(() -> listener.revoked(why));
    }

    private void callback(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("election '{}' listener threw", name, e);
        }
    }

    private void pause(Duration d) {
        try {
            wake.tryAcquire(d.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
