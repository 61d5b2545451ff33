package dev.tenure;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Blocking on store futures with a hard upper bound, turning every failure into a typed exception. */
final class Futures {

    private Futures() {}

    /**
     * Waits for {@code f} at most {@code bound}. Interruption is kept as the thread's flag and reported as a
     * store fault, since the outcome is unknown.
     */
    static <T> T await(CompletableFuture<T> f, Duration bound, String key) {
        try {
            return f.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | CompletionException e) {
            throw unavailable(e.getCause() == null ? e : e.getCause(), key);
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new LeaseStoreUnavailableException(
                    "lease store did not answer within " + bound + " for key '" + key + "'", key, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LeaseStoreUnavailableException(
                    "interrupted while waiting for the lease store (key '" + key + "')", key, e);
        }
    }

    static LeaseStoreUnavailableException unavailable(Throwable t, String key) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof LeaseStoreUnavailableException u) {
            return u;
        }
        return new LeaseStoreUnavailableException("lease store failed for key '" + key + "': " + t, key, t);
    }
}
