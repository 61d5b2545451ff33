package dev.tenure.bench;

import java.time.Duration;

/**
 * One lock implementation under test. All methods are called concurrently from many benchmark threads;
 * a handle is always released by the thread that acquired it.
 *
 * <p>Keys passed in are logical names (for example {@code "pairs:16:t3"} or {@code "handoff"}); the driver adds its
 * own per-run prefix so that drivers and runs never share a Valkey key.
 *
 * <p>Exceptions mean "error" (counted and reported); {@code null} means "not acquired".
 */
public interface LockDriver extends AutoCloseable {

    /** Short name used in {@code --drivers} and in the tables. */
    String name();

    /** One-line description of the configuration (printed under the tables). */
    default String describe() {
        return "";
    }

    /** Non-blocking attempt. Returns {@code null} if the lock is held by someone else. */
    Handle tryLock(String key, Duration ttl) throws Exception;

    /**
     * Waits up to {@code wait} for the lock. Returns {@code null} on timeout.
     * Drivers without a native wait use {@link Poll#until}.
     */
    Handle lock(String key, Duration wait, Duration ttl) throws Exception;

    /** Releases a handle returned by {@link #tryLock} or {@link #lock}. Throws if the lock was no longer held. */
    void unlock(Handle handle) throws Exception;

    /** Closes the driver's clients. */
    @Override
    void close() throws Exception;

    /** An acquired lock: the logical key plus whatever the driver needs to release it (token, lock object, ...). */
    record Handle(String key, Object state) {}
}
