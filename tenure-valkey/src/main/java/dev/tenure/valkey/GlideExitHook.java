package dev.tenure.valkey;

import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes GLIDE's own JVM shutdown hook out, so that Tenure can still release its leases while the JVM exits.
 *
 * <p>GLIDE registers a shutdown hook ({@code AsyncRegistry}) that refuses every request from the moment the JVM begins to
 * exit: "Client is shutting down". Shutdown hooks run all at once and in no order, so a run that Spring's shutdown (or
 * any other hook) lets finish could no longer release its Valkey lease, which then blocked the job for its TTL. Tenure
 * closes its clients itself, after it has released what they hold ({@code Tenure.close()}). Other GLIDE clients of the
 * application lose the hook as well: their requests still pending at exit end by their own timeouts, or with the JVM.
 * Thread-safe; the first call does it.
 */
final class GlideExitHook {

    private static final Logger LOG = LoggerFactory.getLogger(GlideExitHook.class);
    private static final AtomicBoolean REMOVED = new AtomicBoolean();

    private GlideExitHook() {}

    static void remove() {
        if (!REMOVED.compareAndSet(false, true)) {
            return;
        }
        try {
            glide.internal.AsyncRegistry.removeShutdownHook();
        } catch (LinkageError e) {
            LOG.warn(
                    "could not take GLIDE's shutdown hook out ({}): a lease released while the JVM exits may fail with "
                            + "'Client is shutting down' and stay until its TTL ends",
                    e.toString());
        }
    }
}
