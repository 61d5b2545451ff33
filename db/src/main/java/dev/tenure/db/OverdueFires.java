package dev.tenure.db;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A scheduled job's overdue fires as the ledger shows them now, by the database clock ({@link TenureAdmin#overdue}),
 * whether or not a sweeper runs: fires due after the account's {@code swept_until} and more than the policy's grace
 * ago, with no COMPLETED, FAILED or MISSED row and no run under a live lease. PAUSED and RETIRED schedules have none.
 *
 * <p>{@code count} is exact when the reading process could walk the schedule's slots (it has a reader of its kind and
 * the walk stayed within {@value #MAX_WALK} fires); otherwise it is a lower bound ({@code exact} false, shown
 * {@code "1+"}): at least the fire due at {@code next_due_at}, or the sweeper's own count if that is larger; and
 * {@code "0+"} when that fire ran but no sweeper has moved the account past it since, so fires after it may be overdue
 * that this process cannot name. Readers of more kinds come from {@link dev.tenure.spi.ScheduleReader}s on the class
 * path.
 * {@code since} is when the oldest of them was due (null when none); {@code fireKeys} are the fire keys of the oldest
 * {@value #LISTED} (empty when they were not walked); {@code atLastSweep} is the sweeper's own count at its last sweep;
 * {@code at} is the database clock of the read. Immutable.
 */
public record OverdueFires(
        String jobKey,
        long count,
        boolean exact,
        @Nullable Instant since,
        List<String> fireKeys,
        int atLastSweep,
        Instant at) {

    /** Fires walked per job at most: a longer backlog is a lower bound. */
    public static final int MAX_WALK = 2_000;

    /** How many overdue fire keys are kept per job, oldest first. */
    public static final int LISTED = 20;

    public OverdueFires {
        Objects.requireNonNull(jobKey, "jobKey");
        fireKeys = List.copyOf(fireKeys);
        Objects.requireNonNull(at, "at");
    }

    /** None overdue, for {@code jobKey} at {@code at}, with the sweeper's count {@code atLastSweep}. */
    static OverdueFires none(String jobKey, int atLastSweep, Instant at) {
        return new OverdueFires(jobKey, 0, true, null, List.of(), atLastSweep, at);
    }

    /** True if any fire is overdue. */
    public boolean any() {
        return count > 0;
    }

    /** The count as shown: {@code 3}, or {@code 1+} (or {@code 0+}) for a lower bound. */
    public String shown() {
        return count + (exact ? "" : "+");
    }

    /**
     * In words, e.g. {@code "3 fires overdue since 2026-12-07T06:10:00Z"} or {@code "1+ fires overdue since ..."}; empty
     * when none is.
     */
    public String describe() {
        if (!any()) {
            return "";
        }
        return shown() + (count == 1 && exact ? " fire" : " fires") + " overdue"
                + (since == null ? "" : " since " + since);
    }
}
