package dev.tenure.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The registry of lock drivers. */
public final class Drivers {

    /** Drivers run when {@code --drivers} is not given. Tenure first, then the peers. */
    public static final List<String> DEFAULT = List.of("tenure", "glide", "redisson", "spring", "shedlock");

    private Drivers() {}

    /** Creates a fresh driver (and its clients); the caller closes it. */
    @FunctionalInterface
    public interface Factory {
        LockDriver create(BenchConfig cfg) throws Exception;
    }

    /**
     * Every driver the benchmark knows, by {@code --drivers} name. Variants beyond {@link #DEFAULT} are opt-in.
     */
    public static Map<String, Factory> all() {
        Map<String, Factory> m = new LinkedHashMap<>();
        m.put("glide", GlideTextbookDriver::new);
        m.put("glide-array", cfg -> new GlideTextbookDriver(cfg, "glide-array", true));
        m.put("redisson", RedissonDriver::new);
        m.put(
                "spring",
                cfg -> new SpringIntegrationDriver(cfg, "spring", SpringIntegrationDriver.Mode.SPIN_PER_THREAD));
        m.put(
                "spring-pubsub",
                cfg -> new SpringIntegrationDriver(
                        cfg, "spring-pubsub", SpringIntegrationDriver.Mode.PUBSUB_PER_THREAD));
        m.put(
                "spring-shared",
                cfg -> new SpringIntegrationDriver(cfg, "spring-shared", SpringIntegrationDriver.Mode.SPIN_SHARED));
        m.put("shedlock", cfg -> new ShedLockDriver(cfg, "shedlock", false));
        m.put("shedlock-safe", cfg -> new ShedLockDriver(cfg, "shedlock-safe", true));
        // Tenure: its lease API over its Valkey store (batched script calls, local FIFO hand-off)
        m.put("tenure", TenureDriver::new);
        // the same with one script call in flight (larger batches, fewer GLIDE calls) and with four
        m.put("tenure-1", cfg -> new TenureDriver(cfg, "tenure-1", 1));
        m.put("tenure-4", cfg -> new TenureDriver(cfg, "tenure-4", 4));
        return m;
    }

    public static Set<String> known() {
        return all().keySet();
    }

    /** A name of {@link #all()}, or {@code tenure-c<N>}: Tenure with N GLIDE clients ({@code ValkeyConfig.clients}). */
    public static boolean isKnown(String name) {
        return all().containsKey(name) || clients(name) > 0;
    }

    /** N of {@code tenure-c<N>} (1 to 16), else 0. */
    private static int clients(String name) {
        if (!name.matches("tenure-c[0-9]{1,2}")) {
            return 0;
        }
        int n = Integer.parseInt(name.substring("tenure-c".length()));
        return n >= 1 && n <= 16 ? n : 0;
    }

    public static LockDriver create(String name, BenchConfig cfg) throws Exception {
        int clients = clients(name);
        if (clients > 0) {
            return new TenureDriver(cfg, name, Integer.getInteger("tenure.inflight", 2), clients);
        }
        Factory f = all().get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown driver " + name + "; known: " + known());
        }
        return f.create(cfg);
    }
}
