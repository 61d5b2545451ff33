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

    /** Every driver the benchmark knows, by {@code --drivers} name. */
    public static Map<String, Factory> all() {
        Map<String, Factory> m = new LinkedHashMap<>();
        m.put("glide", GlideTextbookDriver::new);
        m.put("redisson", RedissonDriver::new);
        m.put("spring", SpringIntegrationDriver::new);
        m.put("shedlock", ShedLockDriver::new);
        // Tenure: its lease API over its Valkey store (batched script calls, local FIFO hand-off)
        m.put("tenure", TenureDriver::new);
        return m;
    }

    public static Set<String> known() {
        return all().keySet();
    }

    public static LockDriver create(String name, BenchConfig cfg) throws Exception {
        Factory f = all().get(name);
        if (f == null) {
            throw new IllegalArgumentException("unknown driver " + name + "; known: " + known());
        }
        return f.create(cfg);
    }
}
