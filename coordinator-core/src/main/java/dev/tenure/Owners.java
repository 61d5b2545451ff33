package dev.tenure;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Owner ids: unique per acquisition across processes: a random process prefix, the pid, an engine number and
 * a counter, e.g. {@code 3f9a1c07e2d4b8a1-12345-2.42}. Each engine has its own prefix, so it can tell its own
 * holders from everyone else's (even another engine in the same JVM). Thread-safe.
 */
final class Owners {

    private static final String PROCESS = makePrefix();
    private static final AtomicLong ENGINES = new AtomicLong();

    private final String prefix = PROCESS + ENGINES.incrementAndGet() + ".";
    private final AtomicLong counter = new AtomicLong();

    /** A fresh owner id. */
    public String next() {
        return prefix + counter.incrementAndGet();
    }

    /** The prefix of every owner id of this instance: its id as a waiting process in a store's queue. */
    public String id() {
        return prefix;
    }

    /** True if {@code owner} was made by this instance. */
    public boolean isMine(String owner) {
        return owner.startsWith(prefix);
    }

    /** The prefix shared by every owner id this process makes. */
    public static String processPrefix() {
        return PROCESS;
    }

    private static String makePrefix() {
        byte[] b = new byte[8];
        new SecureRandom().nextBytes(b);
        StringBuilder s = new StringBuilder(32);
        for (byte x : b) {
            s.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
        }
        return s.append('-').append(ProcessHandle.current().pid()).append('-').toString();
    }
}
