package dev.tenure;

import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * The FIFO of this process's threads waiting for one key. Only the head asks the store; the others wait
 * their turn, so contention on one key costs the store one attempt per release, not one per thread.
 * Guarded by its own monitor; held only for queue edits, never across a store call.
 */
final class KeyWaiters {

    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    /** A lease on this key that a waiter of this queue holds now, if any: its release wakes the head. */
    volatile @Nullable DefaultLease localHolder;

    /** True while a lease taken through this queue is held and not yet being released. */
    boolean heldLocally() {
        DefaultLease h = localHolder;
        return h != null && h.state() == dev.tenure.LeaseState.ACTIVE && !h.releasing();
    }

    /** Set once an attempt of this queue's head was refused by a store that queues waiting processes: we are queued there. */
    volatile boolean queuedInStore;

    /** The store's release subscription for this key, while anyone waits. */
    @Nullable
    AutoCloseable subscription;

    synchronized void add(Waiter w) {
        queue.addLast(w);
    }

    /** Removes {@code w}; wakes the new head if {@code w} was the head. Returns true if now empty. */
    synchronized boolean remove(Waiter w) {
        boolean wasHead = queue.peekFirst() == w;
        queue.remove(w);
        if (wasHead && !queue.isEmpty()) {
            queue.peekFirst().wake();
        }
        return queue.isEmpty();
    }

    synchronized boolean isHead(Waiter w) {
        return queue.peekFirst() == w;
    }

    synchronized boolean isEmpty() {
        return queue.isEmpty();
    }

    /** The head, if it is parked and can be handed a lease now (it moves to GRANTING); else null. */
    synchronized @Nullable Waiter claimParkedHead() {
        Waiter head = queue.peekFirst();
        return head != null && head.cas(Waiter.WAITING, Waiter.GRANTING) ? head : null;
    }

    synchronized void wakeHead() {
        Waiter head = queue.peekFirst();
        if (head != null) {
            head.wake();
        }
    }
}
