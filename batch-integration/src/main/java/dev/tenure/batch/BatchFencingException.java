package dev.tenure.batch;

import dev.tenure.TenureException;
import org.jspecify.annotations.Nullable;

/**
 * A Spring Batch step cannot be fenced as configured: it was not launched through a {@link GuardedJobOperator},
 * its writer runs outside a transaction on the fenced {@code DataSource}, or a decorator is used outside a step.
 * The message names the step and what to change. It fails the chunk (which rolls back) and the step, so that
 * unfenced writes never commit.
 */
public class BatchFencingException extends TenureException {

    /**
     * @param message what is wrong and what to do
     * @param jobKey  the Tenure job key, or null when unknown
     * @param cause   the underlying fault, or null
     */
    public BatchFencingException(String message, @Nullable String jobKey, @Nullable Throwable cause) {
        super(message, jobKey, cause);
    }
}
