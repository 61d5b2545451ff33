package dev.tenure;

import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.FireState;
import dev.tenure.spi.ScheduleLedger.Missed;
import dev.tenure.spi.ScheduleLedger.RunState;
import dev.tenure.spi.ScheduleLedger.Summary;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What one sweep does with one job's walked fires under its {@link MissedFirePolicy}: which are settled already, which
 * are caught up, which stay open (overdue), and which are recorded MISSED: a row each for fires whose run row exists and
 * for the newest {@link #PER_FIRE_ROWS} of the others, one {@link Summary} per reason for the rest (a long outage leaves
 * a few rows per job, not one per fire). Pure logic; immutable.
 *
 * @param catchUps the fires to run now, with why, oldest first
 * @param open     the overdue fires left open: caught up now, or reported (ALERT_ONLY)
 * @param rows     the fires to record MISSED with a row each
 * @param summaries one record per reason for the fires counted together
 * @param inSummaries the fires those records count
 * @param codes    a short reason tag per fire of {@code rows}, for meters
 * @param running  true if a fire of the walk runs now under a live lease
 */
record FirePlan(
        String jobKey,
        List<DueFire> fires,
        Map<String, RunState> states,
        List<DueFire> catchUps,
        Map<DueFire, String> catchUpReasons,
        List<DueFire> open,
        List<Missed> rows,
        Map<DueFire, String> codes,
        List<Summary> summaries,
        Map<Summary, String> summaryCodes,
        Set<DueFire> inSummaries,
        boolean running) {

    /** MISSED fires without a run row that get a row of their own, per job and sweep: the newest ones. */
    static final int PER_FIRE_ROWS = 10;

    private static final RunState NONE = new RunState("", FireState.NONE, null);

    /**
     * The plan for {@code fires} (oldest first) of {@code jobKey} whose run states are {@code states} (by fire key;
     * missing: no run), at the ledger's {@code now}. {@code cut}: more fires follow this walk, so none of these is among
     * the newest overdue ones that a catch-up policy runs.
     */
    static FirePlan of(
            String jobKey,
            MissedFirePolicy policy,
            List<DueFire> fires,
            Map<String, RunState> states,
            Instant now,
            boolean cut) {
        return of(jobKey, policy, fires, states, now, cut, null);
    }

    /**
     * As above; {@code orphanedSince} non-null: no live process has had the job since then, so none of its fires can be
     * caught up: a catch-up policy records them MISSED with that reason instead.
     */
    static FirePlan of(
            String jobKey,
            MissedFirePolicy policy,
            List<DueFire> fires,
            Map<String, RunState> states,
            Instant now,
            boolean cut,
            @Nullable Instant orphanedSince) {
        List<DueFire> overdue = new ArrayList<>();
        boolean running = false;
        for (DueFire f : fires) {
            FireState s = state(states, f).state();
            if (s == FireState.RUNNING) {
                running = true;
            } else if (!s.settled()) {
                overdue.add(f);
            }
        }
        Instant oldest = now.minus(policy.maxAge());
        List<DueFire> young = new ArrayList<>();
        Map<DueFire, String> suffix = new LinkedHashMap<>();
        for (DueFire f : overdue) {
            if (f.dueAt().isBefore(oldest)) {
                suffix.put(f, "older than the policy's max age " + policy.maxAge());
            } else {
                young.add(f);
            }
        }
        List<DueFire> catchUps = new ArrayList<>();
        List<DueFire> open = new ArrayList<>();
        MissedFirePolicy.Action action = policy.action();
        if (orphanedSince != null && action == MissedFirePolicy.Action.CATCH_UP) {
            young.forEach(f -> suffix.put(
                    f,
                    "no live process has registered the job since " + orphanedSince + ", so nobody can catch it up"));
            young.clear();
        }
        switch (action) {
            case SKIP -> young.forEach(f -> suffix.put(f, "policy SKIP"));
            case ALERT_ONLY -> open.addAll(young);
            case CATCH_UP -> {
                int keep = cut ? 0 : Math.min(policy.maxCatchUps(), young.size());
                for (DueFire f : young.subList(0, young.size() - keep)) {
                    suffix.put(f, "not caught up: only the newest " + policy.maxCatchUps() + " overdue fires are");
                }
                catchUps.addAll(young.subList(young.size() - keep, young.size()));
                open.addAll(catchUps);
            }
        }
        Map<DueFire, String> catchUpReasons = new LinkedHashMap<>();
        catchUps.forEach(f -> catchUpReasons.put(f, why(state(states, f))));
        return split(jobKey, fires, states, suffix, catchUps, catchUpReasons, open, running);
    }

    /** Rows for fires that have a run row and for the newest fires without one; summaries for the rest. */
    private static FirePlan split(
            String jobKey,
            List<DueFire> fires,
            Map<String, RunState> states,
            Map<DueFire, String> suffix,
            List<DueFire> catchUps,
            Map<DueFire, String> catchUpReasons,
            List<DueFire> open,
            boolean running) {
        List<DueFire> missed = new ArrayList<>(suffix.keySet());
        int withoutRow = (int) missed.stream()
                .filter(f -> state(states, f).state() == FireState.NONE)
                .count();
        int summarised = Math.max(0, withoutRow - PER_FIRE_ROWS);
        List<Missed> rows = new ArrayList<>();
        Map<DueFire, String> codes = new LinkedHashMap<>();
        Map<String, List<DueFire>> grouped = new LinkedHashMap<>();
        Set<DueFire> inSummaries = new HashSet<>();
        for (DueFire f : missed) {
            RunState s = state(states, f);
            if (s.state() == FireState.NONE && summarised > 0) {
                summarised--;
                grouped.computeIfAbsent(suffix.get(f), k -> new ArrayList<>()).add(f);
                inSummaries.add(f);
                continue;
            }
            rows.add(new Missed(f, why(s) + "; " + suffix.get(f)));
            codes.put(f, code(s));
        }
        List<Summary> summaries = new ArrayList<>();
        Map<Summary, String> summaryCodes = new LinkedHashMap<>();
        grouped.forEach((why, group) -> {
            Summary s = new Summary(
                    jobKey,
                    group.get(0).dueAt(),
                    group.get(group.size() - 1).dueAt(),
                    group.size(),
                    group.size() + " fires due from " + group.get(0).dueAt() + " to "
                            + group.get(group.size() - 1).dueAt() + " missed: no node ran them; " + why);
            summaries.add(s);
            summaryCodes.put(s, "not_run");
        });
        return new FirePlan(
                jobKey,
                fires,
                states,
                catchUps,
                catchUpReasons,
                open,
                rows,
                codes,
                summaries,
                summaryCodes,
                inSummaries,
                running);
    }

    private static RunState state(Map<String, RunState> states, DueFire f) {
        RunState s = states.get(f.fireKey());
        return s == null ? NONE : s;
    }

    /**
     * Where the job's account stands after the sweep: the last fire before the first one that is not accounted for
     * (settled before, recorded now, counted in a summary now), or {@code walkedTo} when every walked fire is.
     */
    Instant sweptUntil(Instant from, Instant walkedTo, Set<DueFire> recorded, boolean summariesWritten) {
        Instant until = from;
        for (DueFire f : fires) {
            boolean accounted = state(states, f).state().settled()
                    || recorded.contains(f)
                    || (summariesWritten && inSummaries.contains(f));
            if (!accounted) {
                return until;
            }
            until = f.dueAt();
        }
        return walkedTo;
    }

    /** The number of fires recorded MISSED now: rows recorded and fires counted in summaries. */
    long missedCount(Set<DueFire> recorded, boolean summariesWritten) {
        long n = rows.stream().filter(m -> recorded.contains(m.fire())).count();
        if (summariesWritten) {
            n += summaries.stream().mapToLong(Summary::fires).sum();
        }
        return n;
    }

    static String why(RunState s) {
        @Nullable String error = s.error();
        return switch (s.state()) {
            case NONE -> "no node ran it";
            case RUNNING_LEASE_ENDED -> "its holder's lease ended while it ran (the holder died, froze or was cut off)";
            case ABANDONED -> "its run was abandoned" + (error == null ? "" : ": " + error);
            case REJECTED_STALE ->
                "its holder lost its lease (paused or cut off) and was refused" + (error == null ? "" : ": " + error);
            default -> s.state().name();
        };
    }

    /** A short tag for meters: not_run, holder_lost, shutdown, force_released, abandoned or rejected_stale. */
    static String code(RunState s) {
        @Nullable String error = s.error();
        return switch (s.state()) {
            case NONE -> "not_run";
            case RUNNING_LEASE_ENDED -> "holder_lost";
            case ABANDONED ->
                error != null && error.contains("shut down")
                        ? "shutdown"
                        : error != null && error.contains("force-released") ? "force_released" : "abandoned";
            case REJECTED_STALE -> "rejected_stale";
            default -> s.state().name().toLowerCase(Locale.ROOT);
        };
    }
}
