package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;
import glide.api.BaseClient;
import glide.api.GlideClusterClient;
import glide.api.models.PubSubMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes local waiters when a lease is released anywhere: the release script publishes on the lease key's
 * channel (PUBLISH; SPUBLISH to the key's shard in a cluster) and this subscribes, through its own client,
 * to the channels of keys someone here is waiting for, and to this process's turn channel of each key it is queued
 * for (a passed turn is published there alone). Best effort: pub/sub is at-most-once, so waiters keep polling with
 * back-off as well. Subscribing never blocks the caller.
 */
final class ReleaseNotifier implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseNotifier.class);
    private static final int CONFIRM_MILLIS = 2_000;
    private static final int CLOSE_MILLIS = 500;
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final ValkeyConfig cfg;
    /** Runs the check of a channel that lost its last listener, after {@link #linger}. */
    private final ValkeyTimer timer;

    private final Duration linger;
    /**
     * Guards what this process wants of each channel: {@link #listeners} and {@link #confirmed} change together under
     * it, so a listener that comes as a channel's linger ends either keeps the channel or subscribes it again, never
     * neither. Held for those few map edits only, never across a call.
     */
    private final Object wants = new Object();
    /**
     * The listeners of every channel this process wants: one with listeners, or lingering with none. What the client
     * subscribes follows its keys ({@link #sync}).
     */
    private final Map<String, List<Listener>> listeners = new ConcurrentHashMap<>();
    /** Channels the current client subscribes, as far as the last (un)subscription of each that ended says. */
    private final Set<String> active = ConcurrentHashMap.newKeySet();
    /** Channels that are wanted and whose subscription the server confirmed (on the current client). */
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
    /** Per channel, the last of its (un)subscriptions: each starts when the one before it has ended, in the order decided. */
    private final Map<String, CompletableFuture<Void>> changes = new ConcurrentHashMap<>();

    private volatile @Nullable CompletableFuture<? extends BaseClient> client;
    private volatile List<String> addresses;
    private volatile boolean closed;

    /** A channel lingers {@link ValkeyConfig#releaseChannelLinger()} after its last listener left. */
    ReleaseNotifier(ValkeyConfig cfg, ValkeyTimer timer) {
        this.cfg = cfg;
        this.addresses = cfg.addresses();
        this.timer = timer;
        this.linger = cfg.releaseChannelLinger();
    }

    /**
     * Calls {@code onRelease} when the lease behind {@code channel} is freed ({@code r} on that channel), and when its
     * turn is passed to {@code queuedAs} (a message on {@code queuedAs}'s own turn channel, so a pass wakes only the
     * process it is for). A {@code t:<engine>} message on the lease channel (how a Tenure before per-process turn
     * channels announced a turn, during a rolling upgrade) still counts when it names {@code queuedAs}.
     */
    AutoCloseable subscribe(String channel, @Nullable String queuedAs, Runnable onRelease) {
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
        boolean first;
        synchronized (wants) {
            List<Listener> ls = listeners.get(channel); // kept while the channel lingers: it is still subscribed
            first = ls == null;
            if (ls == null) {
                ls = new CopyOnWriteArrayList<>();
                listeners.put(channel, ls);
            }
            ls.add(l);
        }
        if (first) {
            sync(channel);
        }
        return () -> {
            boolean idle;
            synchronized (wants) {
                List<Listener> current = listeners.get(channel);
                idle = current != null && current.remove(l) && current.isEmpty();
            }
            if (idle) {
                timer.after(linger, () -> unsubscribeIfIdle(channel));
            }
        };
    }

    /**
     * A subscriber, and the engine it is queued as (null: every message counts). On a lease channel, a turn announced
     * the old way ({@code t:<engine>}) counts only for that engine.
     */
    private record Listener(@Nullable String queuedAs, Runnable action) {
        void on(String message) {
            if (queuedAs == null || !message.startsWith("t:") || message.equals("t:" + queuedAs)) {
                action.run();
            }
        }
    }

    /**
     * Hot keys come back: a channel stays subscribed until it has had no listener for {@link #linger}
     * ({@link ValkeyConfig#releaseChannelLinger()}, 30 s by default).
     */
    private void unsubscribeIfIdle(String channel) {
        synchronized (wants) {
            List<Listener> current = listeners.get(channel);
            if (current == null || !current.isEmpty()) {
                return;
            }
            listeners.remove(channel);
            confirmed.remove(channel);
        }
        sync(channel);
    }

    /**
     * Makes the client's subscription of {@code channel} follow {@link #listeners}, after every change of it that was
     * already asked for. Each step reads what is wanted when it runs, so a subscription and an unsubscription decided
     * one after the other by different threads (a listener coming just as the last one's linger ends) reach the
     * client in that order, whatever the threads' timing: the last step leaves the channel as last wanted.
     */
    private void sync(String channel) {
        if (closed) {
            return;
        }
        CompletableFuture<Void> step = changes.compute(
                channel,
                (ch, before) -> (before == null ? DONE : before)
                        .thenCompose(x -> client())
                        .thenCompose(c -> reconcile(c, ch))
                        .exceptionally(e -> {
                            LOG.debug("release notifications unavailable: {}", e.toString());
                            return null;
                        }));
        step.whenComplete((x, e) -> changes.remove(channel, step));
    }

    /** The notification client, connecting it on first use. */
    private CompletableFuture<? extends BaseClient> client() {
        CompletableFuture<? extends BaseClient> f = client;
        if (f == null) {
            synchronized (this) {
                if (client == null) {
                    client = GlideClients.create(cfg, addresses, true, false, (msg, ctx) -> deliver(msg));
                }
                f = client;
            }
        }
        return f;
    }

    /** One step of {@link #sync}: (un)subscribes {@code channel} on {@code c} if it is not as wanted; ends when that has. */
    private CompletableFuture<Void> reconcile(BaseClient c, String channel) {
        boolean want = listeners.containsKey(channel);
        if (want == active.contains(channel)) {
            if (want && isCurrent(c)) {
                confirm(channel); // wanted again before its unsubscription was sent: it never stopped
            }
            return DONE;
        }
        Set<String> set = Set.of(channel);
        CompletableFuture<Void> f;
        if (c instanceof GlideClusterClient cc) {
            f = want ? cc.ssubscribe(set, CONFIRM_MILLIS) : cc.sunsubscribeLazy(set);
        } else {
            f = want ? c.subscribe(set, CONFIRM_MILLIS) : c.unsubscribeLazy(set);
        }
        return f.handle((ok, e) -> {
            if (e != null) {
                LOG.debug("(un)subscribe of {} failed: {}", channel, e.toString());
            } else if (isCurrent(c)) {
                if (want) {
                    active.add(channel);
                    confirm(channel);
                } else {
                    active.remove(channel);
                }
            }
            return null;
        });
    }

    /** Marks {@code channel} confirmed if it is still wanted (a later step unsubscribes it otherwise). */
    private void confirm(String channel) {
        synchronized (wants) {
            if (listeners.containsKey(channel)) {
                confirmed.add(channel);
            }
        }
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
            synchronized (wants) {
                confirmed.clear();
            }
            active.clear();
        }
        if (old != null) {
            old.thenAccept(GlideClients::closeQuietly);
        }
        listeners.keySet().forEach(this::sync);
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
                    .get(CLOSE_MILLIS + 500L, TimeUnit.MILLISECONDS);
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
