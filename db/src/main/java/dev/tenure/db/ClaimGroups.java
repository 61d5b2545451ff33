package dev.tenure.db;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Claims from many threads of one process grouped into shared statements, as group commit groups commits: a claim
 * goes out at once, alone, while fewer than {@code inFlight} claim statements run; otherwise it waits, and when one
 * returns, the oldest waiting claim's thread sends it together with the claims queued behind it (up to {@code maxSize},
 * and never two of one job) in one statement. So a lone claim pays no added wait (the wait to form a group is the time
 * a running statement takes, never a timer), and under load a process sends a few statements where it would send one
 * per claim.
 *
 * <p>Every statement runs on the thread of a claim it carries (no hand-off to another thread), and a thread runs at
 * most the one statement that carries its own claim. A statement is bounded by the pool's and the statement's
 * timeouts, so a waiting claim waits at most the statements ahead of it. Thread-safe.
 *
 * @param <C> one claim
 */
final class ClaimGroups<C> {

    /** How a group's statement ended for one of its claims. */
    sealed interface Answer {}

    /** The statement's answer for the claim. */
    record Value(Object value) implements Answer {}

    /** The statement failed for every claim in it with {@code error}. */
    record Failed(RuntimeException error) implements Answer {}

    /** The group's statement could not lock one of its rows in time: each claim is to be made again on its own. */
    record Alone() implements Answer {}

    private final class Waiting {
        final C claim;
        final String job;

        @Nullable
        Answer answer;

        Waiting(C claim, String job) {
            this.claim = claim;
            this.job = job;
        }
    }

    private final int inFlight;
    private final int maxSize;
    private final Function<C, String> jobOf;
    private final Function<List<C>, List<Answer>> send;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Waiting> queue = new ArrayDeque<>();
    private int running;
    private long statements;
    private long claims;

    /**
     * @param inFlight claim statements at once (at least 1)
     * @param maxSize  claims per statement at most (at least 1; 1: every claim alone)
     * @param jobOf    the job of a claim
     * @param send     runs one statement for the group on the calling thread and answers each claim, in order
     */
    ClaimGroups(int inFlight, int maxSize, Function<C, String> jobOf, Function<List<C>, List<Answer>> send) {
        if (inFlight < 1 || maxSize < 1) {
            throw new IllegalArgumentException(
                    "inFlight and maxSize must be >= 1 (got " + inFlight + ", " + maxSize + ")");
        }
        this.inFlight = inFlight;
        this.maxSize = maxSize;
        this.jobOf = jobOf;
        this.send = send;
    }

    /** The answer to {@code claim}, from a statement this thread or another one sent. */
    Answer claim(C claim) {
        Waiting me = new Waiting(claim, jobOf.apply(claim));
        List<Waiting> group;
        lock.lock();
        try {
            queue.addLast(me);
            while (true) {
                if (me.answer != null) {
                    return me.answer;
                }
                if (running < inFlight && queue.peekFirst() == me) {
                    group = take();
                    running++;
                    statements++;
                    claims += group.size();
                    break;
                }
                changed.awaitUninterruptibly();
            }
        } finally {
            lock.unlock();
        }
        List<Answer> answers;
        try {
            List<C> carried = new ArrayList<>(group.size());
            group.forEach(w -> carried.add(w.claim));
            answers = send.apply(carried);
        } catch (RuntimeException | Error e) {
            // every claim of the group is answered, whatever happened: none of its threads waits forever
            answers = Collections.nCopies(
                    group.size(),
                    new Failed(e instanceof RuntimeException r ? r : new IllegalStateException("claim failed", e)));
        }
        lock.lock();
        try {
            for (int i = 0; i < group.size(); i++) {
                group.get(i).answer = answers.get(i);
            }
            running--;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        return Objects.requireNonNull(me.answer);
    }

    /** Statements sent and claims they carried, since this was made: {@code [statements, claims]}. */
    long[] sent() {
        lock.lock();
        try {
            return new long[] {statements, claims};
        } finally {
            lock.unlock();
        }
    }

    /** Claims waiting for a statement now. */
    int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    /** The head of the queue and the claims behind it, at most {@code maxSize}, one per job; under the lock. */
    private List<Waiting> take() {
        List<Waiting> group = new ArrayList<>(Math.min(maxSize, queue.size()));
        Set<String> jobs = new HashSet<>();
        Iterator<Waiting> it = queue.iterator();
        while (it.hasNext() && group.size() < maxSize) {
            Waiting w = it.next();
            if (jobs.add(w.job)) {
                group.add(w);
                it.remove();
            }
        }
        return group;
    }
}
