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
    /** The same compare-and-delete answering as Tenure's script does for one operation: an array of three values. */
    static final Script COMPARE_AND_DELETE_ARRAY = new Script(
            "if redis.call('get', KEYS[1]) == ARGV[1] then return {redis.call('del', KEYS[1]), 0, ''} else return {0, 0, ''} end",
            false);

    private final GlideClient client;
    private final String name;
    private final boolean arrayReply;
    private final String prefix;
    private final Duration poll;
    private final String tokenBase = UUID.randomUUID() + ":";
    private final AtomicLong tokens = new AtomicLong();

    public GlideTextbookDriver(BenchConfig cfg) throws Exception {
        this(cfg, "glide", false);
    }

    /**
     * With {@code arrayReply}, the release script answers an array of three values, like Tenure's script for one
     * operation, instead of one integer: to see what that reply costs the client (driver {@code glide-array}).
     */
    public GlideTextbookDriver(BenchConfig cfg, String name, boolean arrayReply) throws Exception {
        this.name = name;
        this.arrayReply = arrayReply;
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
        return name;
    }

    @Override
    public String describe() {
        return "GLIDE textbook: SET NX PX + EVALSHA compare-and-delete" + (arrayReply ? " answering {n, 0, ''}" : "")
                + "; wait = poll every " + Format.ms(poll)
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
                        arrayReply ? COMPARE_AND_DELETE_ARRAY : COMPARE_AND_DELETE,
                        ScriptOptions.builder()
                                .key(prefix + h.key())
                                .arg((String) h.state())
                                .build())
                .get();
        if (r instanceof Object[] a && a.length == 3) {
            r = a[0];
        }
        if (!Long.valueOf(1L).equals(r)) {
            throw new IllegalStateException("lock " + h.key() + " was not held at unlock (CAD returned " + r + ")");
        }
    }

    @Override
    public void close() throws Exception {
        client.close();
    }
}
