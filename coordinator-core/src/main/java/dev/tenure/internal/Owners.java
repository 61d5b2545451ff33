package dev.tenure.internal;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/** Owner ids: unique per acquisition across processes (random process prefix + pid + counter). */
public final class Owners {

    private static final String PROCESS = makePrefix();
    private static final AtomicLong COUNTER = new AtomicLong();

    private Owners() {
    }

    /** A fresh owner id, e.g. {@code 3f9a1c07e2d4b8a1-12345-42}. */
    public static String next() {
        return PROCESS + COUNTER.incrementAndGet();
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
