package dev.tenure.boot.autoconfigure;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.core.Ordered;

/**
 * tenure.scheduling.*: Coordinated on @Scheduled methods.
 *
 * @param enabled      whether @Coordinated methods are coordinated (false: they run on every instance)
 * @param advisorOrder the order of Tenure's advisor among the method's other advisors; it must stay lower (further
 *                     out) than Spring's transaction advisor, so the lease is taken before the transaction begins and
 *                     released after it commits. Start-up fails otherwise
 */
public record SchedulingProperties(
        @DefaultValue("true") boolean enabled,

        @DefaultValue("" + SchedulingProperties.DEFAULT_ADVISOR_ORDER)
        int advisorOrder) {

    /** Just outside the transaction advisor (whose order is LOWEST_PRECEDENCE by default). */
    public static final int DEFAULT_ADVISOR_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;
}
