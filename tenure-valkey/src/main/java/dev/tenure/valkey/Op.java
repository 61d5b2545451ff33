package dev.tenure.valkey;

import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** One lease operation waiting for, or riding in, a script call. Completed exactly once. */
final class Op {

    static final char ACQUIRE = 'A';
    /** An acquire for a coordinated run's fire, which may answer that the fire is done. */
    static final char ACQUIRE_FIRE = 'F';

    static final char RENEW = 'R';
    static final char RELEASE = 'D';
    /** A release that leaves the marker of a completed fire. */
    static final char RELEASE_COMPLETED = 'C';

    static final char HAND_OFF = 'H';
    static final char HAND_OFF_KEEPING_EXPIRY = 'K';
    static final char LEAVE_QUEUE = 'L';

    final char code;
    final String key;
    final String leaseKey;
    final String fenceKey;
    final String waitingKey;
    final String queueKey;
    final String owner;
    final String ttlMillis;
    final String aux;
    final int slot;
    final CompletableFuture<Object> future = new CompletableFuture<>();
    /** A release completes with a {@link LeaseStore.TurnRelease} instead of a Boolean. */
    private boolean turn;

    Op(char code, String key, String namespace, String owner, long ttlMillis, String aux, boolean cluster) {
        this.code = code;
        this.key = key;
        String tag = ValkeyKeys.tag(namespace, key);
        this.leaseKey = tag + ValkeyKeys.LEASE;
        this.fenceKey = tag + ValkeyKeys.FENCE;
        this.waitingKey = tag + ValkeyKeys.WAITING;
        this.queueKey = tag + ValkeyKeys.QUEUE;
        this.owner = owner;
        this.ttlMillis = Long.toString(ttlMillis);
        this.aux = aux;
        this.slot = cluster ? ValkeyKeys.slot(leaseKey) : 0;
    }

    /** An acquire without a fencing token and without a queue (its aux is just the token flag 0). */
    boolean isPlainAcquire() {
        return code == ACQUIRE && "0".equals(aux);
    }

    /** This release completes with a {@link LeaseStore.TurnRelease}. */
    Op turn() {
        turn = true;
        return this;
    }

    /** Completes from the script's three values for this op. */
    void complete(Object ok, Object number, Object text) {
        boolean granted = ((Long) ok) == 1L;
        long n = (Long) number;
        switch (code) {
            case ACQUIRE, ACQUIRE_FIRE ->
                future.complete(
                        granted
                                ? AcquireResult.acquired(n)
                                : ((Long) ok) == 2L
                                        ? new AcquireResult.AlreadyDone(Duration.ofMillis(Math.max(0, n)))
                                        : AcquireResult.held(text == null ? "" : text.toString(), n));
            case HAND_OFF, HAND_OFF_KEEPING_EXPIRY ->
                future.complete(
                        granted
                                ? AcquireResult.acquired(n, Long.valueOf(1L).equals(text))
                                : AcquireResult.held(text == null ? "" : text.toString(), n));
            case RELEASE ->
                future.complete(
                        !turn
                                ? (Object) granted
                                : !granted
                                        ? LeaseStore.TurnRelease.NOT_OURS
                                        : n == 1L ? LeaseStore.TurnRelease.PASSED : LeaseStore.TurnRelease.FREED);
            default -> future.complete(granted);
        }
    }

    /** Completes this op, the {@code i}-th of its call, from the script's flat reply (three values per op). */
    void completeFrom(Object[] values, int i) {
        complete(values[3 * i], values[3 * i + 1], values[3 * i + 2]);
    }

    /** Whether this op, the {@code i}-th of its call, was granted a lease (an acquire or a hand-off that succeeded). */
    boolean grantedIn(Object[] values, int i) {
        return (code == ACQUIRE || code == ACQUIRE_FIRE || code == HAND_OFF || code == HAND_OFF_KEEPING_EXPIRY)
                && Long.valueOf(1L).equals(values[3 * i]);
    }

    static void completeAll(List<Op> ops, Object[] values) {
        for (int i = 0; i < ops.size(); i++) {
            ops.get(i).completeFrom(values, i);
        }
    }

    /** {@code batch} split by cluster slot, in order of first appearance (one group when not a cluster). */
    static List<List<Op>> bySlot(List<Op> batch) {
        if (oneSlot(batch)) {
            return List.of(batch);
        }
        Map<Integer, List<Op>> groups = new LinkedHashMap<>();
        for (Op op : batch) {
            groups.computeIfAbsent(op.slot, s -> new ArrayList<>()).add(op);
        }
        return new ArrayList<>(groups.values());
    }

    private static boolean oneSlot(List<Op> batch) {
        int slot = batch.get(0).slot;
        for (int i = 1; i < batch.size(); i++) {
            if (batch.get(i).slot != slot) {
                return false;
            }
        }
        return true;
    }

    void fail(Throwable t) {
        future.completeExceptionally(t);
    }
}
