package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;
import glide.api.BaseClient;
import glide.api.GlideClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Standalone mode with replicas: decides, when calls fail, whether the primary moved, by asking each configured
 * address for its replication role (INFO replication) through a short-lived read-only client. Runs at most once per probe interval, on its own
 * daemon thread.
 *
 * <p>Valkey alone cannot say who the real primary is, so the rules are conservative: stay while the current
 * primary still answers as primary; move only when it is unreachable or has become a replica, and only to the
 * single other address that answers as a primary with replication history (an offset &gt; 0, or a previous
 * replication id remembered from before its promotion; an old primary restarted empty has neither). Two candidates = ambiguous: stay and log. A refused or failed switch is retried at
 * the next probe. (A lease lost in such a failover is what the database fencing layer is for.)
 */
final class FailoverProbe implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FailoverProbe.class);

    /** What one address said of its role; {@code offset} &gt; 0 means it has replication history. */
    record Role(String address, boolean reachable, boolean primary, long offset) {}

    private final ValkeyConfig cfg;
    private final Predicate<String> switchTo;
    private final AtomicBoolean running = new AtomicBoolean();
    private final ExecutorService exec = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "tenure-failover-probe");
        t.setDaemon(true);
        return t;
    });
    private volatile long lastRun;
    private volatile @Nullable String current;

    /** {@code switchTo} connects to the given address and says whether that worked. */
    FailoverProbe(ValkeyConfig cfg, @Nullable String current, Predicate<String> switchTo) {
        this.cfg = cfg;
        this.switchTo = switchTo;
        this.current = current;
    }

    void trigger() {
        long now = System.nanoTime();
        if (now - lastRun < cfg.failoverProbeInterval().toNanos() || !running.compareAndSet(false, true)) {
            return;
        }
        lastRun = now;
        try {
            exec.execute(() -> {
                try {
                    List<Role> roles = new ArrayList<>();
                    for (String a : cfg.addresses()) {
                        roles.add(role(cfg, a));
                    }
                    String target = choose(current, roles);
                    if (target != null && switchTo.test(target)) {
                        current = target;
                    }
                } finally {
                    running.set(false);
                }
            });
        } catch (RuntimeException rejected) {
            running.set(false);
        }
    }

    /** Where to move, or null to stay. Pure, for tests. */
    static @Nullable String choose(@Nullable String current, List<Role> roles) {
        Role now = roles.stream()
                .filter(r -> r.address().equals(current))
                .findFirst()
                .orElse(null);
        if (now != null && now.reachable() && now.primary()) {
            return null;
        }
        List<Role> candidates = roles.stream()
                .filter(r -> !r.address().equals(current) && r.reachable() && r.primary() && r.offset() > 0)
                .toList();
        if (candidates.size() > 1) {
            LOG.error("several Valkey nodes claim to be primary: {}; staying on {}", candidates, current);
            return null;
        }
        return candidates.isEmpty() ? null : candidates.get(0).address();
    }

    /** At start: the single address that answers as primary (any offset), else null. */
    static @Nullable String findPrimary(ValkeyConfig cfg) {
        List<String> primaries = new ArrayList<>();
        for (String a : cfg.addresses()) {
            if (role(cfg, a).primary()) {
                primaries.add(a);
            }
        }
        return primaries.size() == 1 ? primaries.get(0) : null;
    }

    private static Role role(ValkeyConfig cfg, String address) {
        BaseClient c = null;
        try {
            c = GlideClients.create(cfg, List.of(address), false, true, null)
                    .get(cfg.connectionTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
            String info = String.valueOf(((GlideClient) c)
                    .customCommand(new String[] {"INFO", "replication"})
                    .get(cfg.requestTimeout().toMillis() + 500, TimeUnit.MILLISECONDS));
            return parse(address, info);
        } catch (Exception e) {
            return new Role(address, false, false, 0);
        } finally {
            GlideClients.closeQuietly(c);
        }
    }

    /**
     * Reads {@code INFO replication}. The "history" of a primary is its replication offset, or, right after a
     * promotion, the previous replication id it remembers ({@code master_replid2}); an old primary restarted
     * empty has neither.
     */
    static Role parse(String address, String info) {
        boolean primary = false;
        long offset = 0;
        boolean remembers = false;
        for (String line : info.split("\\R")) {
            if (line.startsWith("role:")) {
                primary = line.substring(5).trim().equals("master")
                        || line.substring(5).trim().equals("primary");
            } else if (line.startsWith("master_repl_offset:")) {
                offset = Long.parseLong(line.substring(19).trim());
            } else if (line.startsWith("master_replid2:")) {
                remembers = !line.substring(15).trim().matches("0*");
            }
        }
        return new Role(address, true, primary, primary ? Math.max(offset, remembers ? 1 : 0) : 0);
    }

    @Override
    public void close() {
        exec.shutdownNow();
    }
}
