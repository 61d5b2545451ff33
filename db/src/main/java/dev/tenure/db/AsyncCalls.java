package dev.tenure.db;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Blocking JDBC work turned into futures: a fixed pool of daemon threads with a bounded queue, and a timer that fails
 * any call still unanswered after the call timeout. Every future completes, exceptionally only with a
 * {@link LedgerUnavailableException}. Thread-safe; {@link #close()} stops the threads.
 */
final class AsyncCalls implements AutoCloseable {

    private final ThreadPoolExecutor workers;
    private final ScheduledThreadPoolExecutor timer;
    private final Duration callTimeout;

    public AsyncCalls(int threads, int maxQueued, Duration callTimeout) {
        this.callTimeout = callTimeout;
        this.workers = new ThreadPoolExecutor(
                threads,
                threads,
                0,
                TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(maxQueued),
                daemons("tenure-db-io-"));
        this.timer = new ScheduledThreadPoolExecutor(1, daemons("tenure-db-timeout-"));
        this.timer.setRemoveOnCancelPolicy(true);
    }

    /** The bound on every call, queueing included; a call still queued then never starts. */
    public Duration callTimeout() {
        return callTimeout;
    }

    public <T> CompletableFuture<T> call(String op, String key, Supplier<T> work) {
        CompletableFuture<T> f = new CompletableFuture<>();
        try {
            workers.execute(() -> run(f, op, key, work));
        } catch (RejectedExecutionException e) {
            f.completeExceptionally(new LedgerUnavailableException(
                    op + " of '" + key + "' refused: "
                            + (workers.isShutdown()
                                    ? "the store is closed"
                                    : "too many calls waiting for a database thread"),
                    key,
                    null,
                    false,
                    e));
            return f;
        }
        ScheduledFuture<?> deadline = timer.schedule(
                () -> f.completeExceptionally(new LedgerUnavailableException(
                        op + " of '" + key + "' got no answer within " + callTimeout + "; the outcome is unknown",
                        key,
                        null,
                        true,
                        null)),
                callTimeout.toNanos(),
                TimeUnit.NANOSECONDS);
        f.whenComplete((v, e) -> deadline.cancel(false));
        return f;
    }

    private static <T> void run(CompletableFuture<T> f, String op, String key, Supplier<T> work) {
        if (f.isDone()) {
            return; // timed out while queued: do not touch the database any more
        }
        try {
            f.complete(work.get());
        } catch (LedgerUnavailableException | IllegalArgumentException e) {
            f.completeExceptionally(e);
        } catch (RuntimeException | Error e) {
            f.completeExceptionally(
                    new LedgerUnavailableException(op + " of '" + key + "' failed: " + e, key, null, true, e));
        }
    }

    private static ThreadFactory daemons(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    public void close() {
        workers.shutdown();
        timer.shutdownNow();
        try {
            workers.awaitTermination(callTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
