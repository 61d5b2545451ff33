package dev.tenure.valkey;

import glide.api.BaseClient;
import glide.api.GlideClient;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Standalone mode with replicas: finds which configured address is the primary now (ROLE on each, through a
 * short-lived read-only client) and reports it when it changed. Runs at most once per probe interval, on
 * its own daemon thread, and only when calls are failing.
 */
final class FailoverProbe implements AutoCloseable {

    private final ValkeyConfig cfg;
    private final Consumer<String> onNewPrimary;
    private final AtomicBoolean running = new AtomicBoolean();
    private final ExecutorService exec = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "tenure-failover-probe");
        t.setDaemon(true);
        return t;
    });
    private volatile long lastRun;
    private volatile String knownPrimary;

    FailoverProbe(ValkeyConfig cfg, String knownPrimary, Consumer<String> onNewPrimary) {
        this.cfg = cfg;
        this.onNewPrimary = onNewPrimary;
        this.knownPrimary = knownPrimary;
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
                    String p = findPrimary(cfg, knownPrimary);
                    if (p != null && !p.equals(knownPrimary)) {
                        knownPrimary = p;
                        onNewPrimary.accept(p);
                    }
                } finally {
                    running.set(false);
                }
            });
        } catch (RuntimeException rejected) {
            running.set(false);
        }
    }

    /** The first address whose ROLE is primary (preferring one other than {@code skip}), or null. */
    static String findPrimary(ValkeyConfig cfg, String skip) {
        String fallback = null;
        for (String address : cfg.addresses()) {
            if (isPrimary(cfg, address)) {
                if (!address.equals(skip)) {
                    return address;
                }
                fallback = address;
            }
        }
        return fallback;
    }

    private static boolean isPrimary(ValkeyConfig cfg, String address) {
        BaseClient c = null;
        try {
            c = GlideClients.create(cfg, List.of(address), false, true, null)
                    .get(cfg.connectionTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
            Object role = ((GlideClient) c).customCommand(new String[]{"ROLE"})
                    .get(cfg.requestTimeout().toMillis() + 500, TimeUnit.MILLISECONDS);
            Object first = role instanceof Object[] a && a.length > 0 ? a[0] : null;
            return "master".equals(String.valueOf(first)) || "primary".equals(String.valueOf(first));
        } catch (Exception e) {
            return false;
        } finally {
            GlideClients.closeQuietly(c);
        }
    }

    @Override
    public void close() {
        exec.shutdownNow();
    }
}
