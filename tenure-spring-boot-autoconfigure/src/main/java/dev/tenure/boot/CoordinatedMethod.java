package dev.tenure.boot;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import java.time.Instant;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * What Tenure knows of one {@link Coordinated} method: its job key, policy, lease options and how a fire maps to a slot.
 *
 * @param where   {@code SimpleClassName.method}, for messages
 * @param jobKey  the job key of its runs
 * @param policy  skip the fire, or wait up to {@code maxWait} for the holder
 * @param options the lease TTL and renewal of its runs
 * @param slots   the slot (fire key) of a fire at a given time
 * @param schedule    the schedule the sweeper walks (empty for a disabled cron)
 * @param missedFires the method's own missed-fire policy action, or null for the application's default
 */
record CoordinatedMethod(
        String where,
        String jobKey,
        RunPolicy policy,
        LeaseOptions options,
        UnaryOperator<Instant> slots,
        Optional<Schedule> schedule,
        MissedFirePolicy.Action missedFires) {

    /** The fire key of a fire at {@code now}: its slot as an ISO-8601 instant. */
    String fireKey(Instant now) {
        return slots.apply(now).toString();
    }
}
