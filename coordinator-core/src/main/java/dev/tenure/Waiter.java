package dev.tenure;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * One thread waiting for a key in this process. Its owner id changes only while a releasing thread has it in
 * GRANTING (no attempt of its own and no other hand-off can be under way then), so a hand-off and its own attempt
 * can never both grant it a lease under different ids. It changes after a hand-off whose outcome is unknown: the
 * clean-up of the old id may still be pending, and must not find a lease the waiter took later.
 *
 * <p>States: WAITING (parked, may be handed the lease) → TRYING (asking the store itself) → WAITING ...;
 * WAITING → GRANTING (a releasing thread is handing it the lease) → GRANTED or back to WAITING;
 * WAITING/TRYING → DONE (gave up or acquired by itself).
 */
final class Waiter {

    static final int WAITING = 0;
    static final int TRYING = 1;
    static final int GRANTING = 2;
    static final int GRANTED = 3;
    static final int DONE = 4;

    final Thread thread = Thread.currentThread();
    final LeaseOptions options;
    final AtomicInteger state = new AtomicInteger(WAITING);
    volatile @Nullable DefaultLease granted;
    private volatile boolean signalled;
    private volatile String owner;

    Waiter(String owner, LeaseOptions options) {
        this.owner = owner;
        this.options = options;
    }

    /** The owner id its next attempt or hand-off uses. */
    String owner() {
        return owner;
    }

    /**
     * Gives the waiter a fresh owner id; only the thread that moved it to GRANTING calls this, before it moves it
     * back to WAITING and wakes it (the volatile write, then the state write, publish the id to the waiter).
     */
    void replaceOwner(String fresh) {
        owner = fresh;
    }

    boolean cas(int from, int to) {
        return state.compareAndSet(from, to);
    }

    void grant(DefaultLease lease) {
        granted = lease;
        state.set(GRANTED);
        wake();
    }

    /**
     * Signals the waiter. The flag, not the thread's park permit, carries the signal: the waiter's thread also
     * parks inside store calls (CompletableFuture.get), which would swallow a bare unpark.
     */
    void wake() {
        signalled = true;
        LockSupport.unpark(thread);
    }

    /** Parks up to {@code nanos} unless signalled since the last call; consumes the signal. Call only from {@link #thread}. */
    void park(long nanos) {
        if (signalled) {
            signalled = false;
            return;
        }
        LockSupport.parkNanos(this, nanos);
        if (signalled) {
            signalled = false;
        }
    }

    /**
     * {@link #park} that an interrupt does not cut short (a parked thread whose flag is set would return at once, and
     * its loop would spin); the flag is restored afterwards. For waiting out a hand-off that decides for this thread.
     */
    void parkThroughInterrupt(long nanos) {
        boolean interrupted = Thread.interrupted();
        try {
            park(nanos);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Forgets earlier signals: the attempt about to start sees the store's current state anyway. */
    void clearSignal() {
        signalled = false;
    }
}
