package dev.tenure.boot.autoconfigure;

import static dev.tenure.boot.TenureConfigurationException.property;

import dev.tenure.MissedFirePolicy;
import java.time.Duration;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * tenure.missed-fires.*: what Tenure does with a fire of a {@code @Coordinated} method that was due and did not
 * complete (see {@link MissedFirePolicy}).
 *
 * @param enabled        whether the schedules of {@code @Coordinated} methods are recorded and swept
 * @param policy         catch-up (run overdue fires now, the newest first up to max-catch-ups), skip (record them
 *                       MISSED) or alert-only (report them, record MISSED after max-age); {@code @Coordinated(missedFires)}
 *                       overrides it per method
 * @param maxCatchUps    how many overdue fires of one job are caught up at most
 * @param maxAge         older overdue fires are recorded MISSED, whatever the policy
 * @param grace          how long after its time a fire may still be starting before it counts as overdue
 * @param sweepInterval  how often the sweeping instance looks for overdue fires
 * @param overdueHealth  the status of health component {@code tenureFires} while fires are overdue or were missed in
 *                       the last hour, a sweep fails, or nobody sweeps a schedule for 3 sweep intervals (at least a
 *                       minute): up (with the details) or down. Paused schedules are listed and never make it down;
 *                       retired ones are not listed
 * @param retireAfter    how long a schedule stays in the sweeps and health checks after the last instance that
 *                       registered it stopped; then it is retired, so a removed job stops alarming
 */
public record MissedFiresProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("catch-up") MissedFirePolicy.Action policy,

        @DefaultValue("" + MissedFirePolicy.DEFAULT_MAX_CATCH_UPS)
        int maxCatchUps,

        @DefaultValue("1h") Duration maxAge,
        @DefaultValue("5s") Duration grace,
        @DefaultValue("5s") Duration sweepInterval,
        @DefaultValue("up") OverdueHealth overdueHealth,
        @DefaultValue("1d") Duration retireAfter) {

    /** The status health reports while fires are overdue or missed. */
    public enum OverdueHealth {
        UP,
        DOWN
    }

    public MissedFiresProperties {
        if (maxCatchUps < 0) {
            throw property("tenure.missed-fires.max-catch-ups", maxCatchUps, "zero or more");
        }
        if (grace == null || grace.toMillis() < 1) {
            throw property("tenure.missed-fires.grace", grace, "at least 1ms");
        }
        if (maxAge == null || maxAge.compareTo(grace) <= 0) {
            throw property(
                    "tenure.missed-fires.max-age", maxAge, "longer than tenure.missed-fires.grace (" + grace + ")");
        }
        if (retireAfter == null || retireAfter.compareTo(Duration.ofSeconds(1)) < 0) {
            throw property("tenure.missed-fires.retire-after", retireAfter, "at least 1s");
        }
        if (sweepInterval == null || sweepInterval.toMillis() < 10) {
            throw property("tenure.missed-fires.sweep-interval", sweepInterval, "at least 10ms");
        }
    }

    /** The policy of a method whose annotation names {@code action} (null: this default). */
    public MissedFirePolicy toPolicy(MissedFirePolicy.Action action) {
        return new MissedFirePolicy(action == null ? policy : action, maxCatchUps, maxAge, grace);
    }
}
