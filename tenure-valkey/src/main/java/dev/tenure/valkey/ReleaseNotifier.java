package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;

import glide.api.BaseClient;
import glide.api.GlideClusterClient;
import glide.api.models.PubSubMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Wakes local waiters when a lease is released anywhere: the release script publishes on the lease key's
 * channel (PUBLISH; SPUBLISH to the key's shard in a cluster) and this subscribes, through its own client,
 * to the channels of keys someone here is waiting for, and to this process's turn channel of each key it is queued
 * for (a passed turn is published there alone). Best effort: pub/sub is at-most-once, so waiters keep polling with
 * back-off as well. Subscribing never blocks the caller.
 */
final class ReleaseNotifier implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseNotifier.class);
    private static final long LINGER_SECONDS = 30;
    private static final int CONFIRM_MILLIS = 2_000;
    private static final int CLOSE_MILLIS = 500;
    private static final java.util.concurrent.Executor LINGER =
            CompletableFuture.delayedExecutor(LINGER_SECONDS, java.util.concurrent.TimeUnit.SECONDS);

    private final ValkeyConfig cfg;
    private final Map<String, List<Listener>> listeners = new ConcurrentHashMap<>();
    private final Set<String> subscribed = ConcurrentHashMap.newKeySet();
    /** Channels whose subscription the server confirmed (on the current client). */
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
    private volatile CompletableFuture<? extends BaseClient> client;
    private volatile List<String> addresses;
    private volatile boolean closed;

    ReleaseNotifier(ValkeyConfig cfg) {
        this.cfg = cfg;
        this.addresses = cfg.addresses();
    }

    /**
     * Calls {@code onRelease} when the lease behind {@code channel} is freed ({@code r} on that channel), and when its
     * turn is passed to {@code queuedAs} (a message on {@code queuedAs}'s own turn channel, so a pass wakes only the
     * process it is for). A {@code t:<engine>} message on the lease channel (how a Tenure before per-process turn
     * channels announced a turn, during a rolling upgrade) still counts when it names {@code queuedAs}.
     */
    AutoCloseable subscribe(String channel, String queuedAs, Runnable onRelease) {
        Runnable offRelease = listen(channel, new Listener(queuedAs, onRelease));
        if (queuedAs == null) {
            return offRelease::run;
        }
        Runnable offTurn = listen(ValkeyKeys.turnChannel(channel, queuedAs), new Listener(null, onRelease));
        return () -> {
            offRelease.run();
            offTurn.run();
        };
    }

    /** Adds {@code l} on {@code channel} (subscribing when it is the first); returns its removal. */
    private Runnable listen(String channel, Listener l) {
        List<Listener> ls = listeners.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>());
        ls.add(l);
        if (ls.size() == 1 && subscribed.add(channel)) {
            withClient(c -> change(c, channel, true));
        }
        return () -> {
            List<Listener> current = listeners.get(channel);
            if (current != null && current.remove(l) && current.isEmpty()) {
                LINGER.execute(() -> unsubscribeIfIdle(channel));
            }
        };
    }

    /**
     * A subscriber, and the engine it is queued as (null: every message counts). On a lease channel, a turn announced
     * the old way ({@code t:<engine>}) counts only for that engine.
     */
    private record Listener(String queuedAs, Runnable action) {
        void on(String message) {
            if (queuedAs == null || !message.startsWith("t:") || message.equals("t:" + queuedAs)) {
                action.run();
            }
        }
    }

    /** Hot keys come back: a channel stays subscribed until it has had no listener for {@link #LINGER_SECONDS}. */
    private void unsubscribeIfIdle(String channel) {
        List<Listener> current = listeners.get(channel);
        if (current != null && current.isEmpty() && listeners.remove(channel, current)) {
            subscribed.remove(channel);
            confirmed.remove(channel);
            withClient(c -> change(c, channel, false));
        }
    }

    private void withClient(java.util.function.Consumer<BaseClient> action) {
        if (closed) {
            return;
        }
        CompletableFuture<? extends BaseClient> f = client;
        if (f == null) {
            synchronized (this) {
                if (client == null) {
                    client = GlideClients.create(cfg, addresses, true, false, (msg, ctx) -> deliver(msg));
                }
                f = client;
            }
        }
        f.thenAccept(action).exceptionally(e -> {
            LOG.debug("release notifications unavailable: {}", e.toString());
            return null;
        });
    }

    private void change(BaseClient c, String channel, boolean on) {
        Set<String> set = Set.of(channel);
        CompletableFuture<Void> f;
        if (c instanceof GlideClusterClient cc) {
            f = on ? cc.ssubscribe(set, CONFIRM_MILLIS) : cc.sunsubscribeLazy(set);
        } else {
            f = on ? c.subscribe(set, CONFIRM_MILLIS) : c.unsubscribeLazy(set);
        }
        f.whenComplete((ok, e) -> {
            if (e != null) {
                LOG.debug("(un)subscribe of {} failed: {}", channel, e.toString());
            } else if (on && isCurrent(c) && subscribed.contains(channel)) {
                confirmed.add(channel);
            }
        });
    }

    private boolean isCurrent(BaseClient c) {
        CompletableFuture<? extends BaseClient> cur = client;
        return cur != null && cur.getNow(null) == c;
    }

    /**
     * Whether a release of the lease behind {@code channel}, and a turn passed to a process queued here, would reach
     * this process now: the server confirmed the subscriptions.
     */
    boolean isConfirmed(String channel) {
        if (!confirmed.contains(channel)) {
            return false;
        }
        List<Listener> ls = listeners.get(channel);
        if (ls != null) {
            for (Listener l : ls) { // a listener queued as an engine also listens on that engine's turn channel
                if (l.queuedAs() != null && !confirmed.contains(ValkeyKeys.turnChannel(channel, l.queuedAs()))) {
                    return false;
                }
            }
        }
        return true;
    }

    private void deliver(PubSubMessage msg) {
        List<Listener> ls = listeners.get(msg.getChannel().toString());
        if (ls != null) {
            String message = msg.getMessage().toString();
            ls.forEach(l -> l.on(message));
        }
    }

    /** After a standalone failover: resubscribe everything through a client on the new primary. */
    void moveTo(String primary) {
        CompletableFuture<? extends BaseClient> old;
        synchronized (this) {
            old = client;
            addresses = List.of(primary);
            client = null;
            confirmed.clear();
        }
        if (old != null) {
            old.thenAccept(GlideClients::closeQuietly);
        }
        subscribed.forEach(ch -> withClient(c -> change(c, ch, true)));
    }

    /**
     * Unsubscribes every channel (bounded wait), then closes the client: closing a client with live subscriptions
     * makes GLIDE's subscription synchronizer log an error about a dropped client.
     */
    @Override
    public void close() {
        closed = true;
        CompletableFuture<? extends BaseClient> f = client;
        if (f == null) {
            return;
        }
        BaseClient c = f.getNow(null);
        if (c == null) {
            f.thenAccept(GlideClients::closeQuietly); // still connecting: nothing was subscribed through it yet
            return;
        }
        try {
            (c instanceof GlideClusterClient cc ? cc.sunsubscribe(CLOSE_MILLIS) : c.unsubscribe(CLOSE_MILLIS))
                    .get(CLOSE_MILLIS + 500L, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.debug("unsubscribing before close failed: {}", e.toString());
        } finally {
            GlideClients.closeQuietly(c);
        }
    }
}
