package dev.tenure.bench;

import glide.api.GlideClient;
import glide.api.models.Script;
import glide.api.models.commands.ScriptOptions;
import glide.api.models.commands.SetOptions;
import glide.api.models.configuration.GlideClientConfiguration;
import glide.api.models.configuration.NodeAddress;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The textbook single-instance Valkey lock on GLIDE: {@code SET key token NX PX ttl} to acquire, an EVALSHA
 * compare-and-delete script to release, fixed-interval polling to wait. One GlideClient (one multiplexed TCP
 * connection) shared by all benchmark threads; each thread blocks on the returned future.
 */
public final class GlideTextbookDriver implements LockDriver {

    /** Kept as a static singleton and never closed (closing a Script drops GLIDE's copy needed for NOSCRIPT reload). */
    static final Script COMPARE_AND_DELETE = new Script(
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", false);

    private final GlideClient client;
    private final String prefix;
    private final Duration poll;
    private final String tokenBase = UUID.randomUUID() + ":";
    private final AtomicLong tokens = new AtomicLong();

    public GlideTextbookDriver(BenchConfig cfg) throws Exception {
        GlideSupport.quietLogs();
        this.client = GlideClient.createClient(GlideClientConfiguration.builder()
                        .address(NodeAddress.builder()
                                .host(cfg.host())
                                .port(cfg.port())
                                .build())
                        .requestTimeout((int) cfg.requestTimeout().toMillis())
                        .clientName("bench-glide-textbook")
                        .build())
                .get();
        this.prefix = cfg.keyPrefix(name()) + ":";
        this.poll = cfg.poll();
    }

    @Override
    public String name() {
        return "glide";
    }

    @Override
    public String describe() {
        return "GLIDE textbook: SET NX PX + EVALSHA compare-and-delete; wait = poll every " + Format.ms(poll)
                + "; 1 GlideClient shared by all threads";
    }

    @Override
    public Handle tryLock(String key, Duration ttl) throws Exception {
        String token = tokenBase + tokens.incrementAndGet();
        SetOptions nxpx = SetOptions.builder()
                .conditionalSet(SetOptions.ConditionalSet.ONLY_IF_DOES_NOT_EXIST)
                .expiry(SetOptions.Expiry.Milliseconds(ttl.toMillis()))
                .build();
        String r = client.set(prefix + key, token, nxpx).get();
        return "OK".equals(r) ? new Handle(key, token) : null;
    }

    @Override
    public Handle lock(String key, Duration wait, Duration ttl) throws Exception {
        return Poll.until(() -> tryLock(key, ttl), wait, poll);
    }

    @Override
    public void unlock(Handle h) throws Exception {
        Object r = client.invokeScript(
                        COMPARE_AND_DELETE,
                        ScriptOptions.builder()
                                .key(prefix + h.key())
                                .arg((String) h.state())
                                .build())
                .get();
        if (!Long.valueOf(1L).equals(r)) {
            throw new IllegalStateException("lock " + h.key() + " was not held at unlock (CAD returned " + r + ")");
        }
    }

    @Override
    public void close() throws Exception {
        client.close();
    }
}
