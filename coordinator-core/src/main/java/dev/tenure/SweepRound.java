package dev.tenure;

import dev.tenure.spi.ScheduleLedger;
import dev.tenure.spi.ScheduleLedger.Due;
import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.FireStatus;
import dev.tenure.spi.ScheduleLedger.Missed;
import dev.tenure.spi.ScheduleLedger.RunState;
import dev.tenure.spi.ScheduleLedger.Settled;
import dev.tenure.spi.ScheduleLedger.Span;
import dev.tenure.spi.ScheduleLedger.Summary;
import dev.tenure.spi.ScheduleLedger.SweepMark;
import dev.tenure.spi.ScheduleLedger.Tracked;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One sweep of one application's schedules, as the ledger holds them: read the schedules whose check time has come
 * (oldest first, with the ledger's clock), walk each one's fires from where its account stands through its versions and
 * around its paused spans, read their run states, plan each job ({@link FirePlan}), and settle them in transactions of
 * bounded size. Every bound keeps a sweep short whatever the backlog: a long outage is worked through over several
 * sweeps, oldest positions first. One job's broken schedule fails only that job's sweep. Single use, on the sweeper's
 * thread.
 */
final class SweepRound {

    /** Schedules read per sweep at most. */
    static final int MAX_JOBS = 2_000;
    /** Fire steps per sweep at most, all jobs together. */
    static final int MAX_STEPS = 1_000_000;
    /** A walk of up to this many fires reads their states by fire key; a longer one reads its job's runs since. */
    static final int BY_KEY = 2_000;
    /** How long before its first fire a long walk reads its job's runs (a run may start before its fire is due). */
    static final Duration RUNS_BEFORE = Duration.ofHours(1);
    /** MISSED rows per transaction at most. */
    static final int SETTLE_ROWS = 5_000;
    /** Jobs per transaction at most. */
    static final int SETTLE_JOBS = 1_000;
    /** How long a job whose sweep failed waits for the next try. */
    static final Duration BROKEN_RETRY = Duration.ofMinutes(1);

    /** What a sweep did. */
    record Result(
            Instant now,
            int due,
            int overdue,
            List<DueFire> missed,
            long summarised,
            List<DueFire> catchUps,
            boolean more) {}

    /** One job's walk, before its states are known: its versions oldest first, the current one last. */
    private record Walk(
            Tracked tracked,
            @Nullable ScheduledJob local,
            String state,
            List<FireWalk.Segment> segments,
            FireWalk.Result result) {

        FireWalk.Segment current() {
            return segments.get(segments.size() - 1);
        }
    }

    private final Sweeper sweeper;
    private final ScheduleLedger ledger;

    SweepRound(Sweeper sweeper, ScheduleLedger ledger) {
        this.sweeper = sweeper;
        this.ledger = ledger;
    }

    Result run() {
        long sent = System.currentTimeMillis();
        Due due = ledger.due(sweeper.application(), MAX_JOBS);
        sweeper.checkClock(due.now(), sent, System.currentTimeMillis());
        Instant now = due.now();
        List<Walk> walks = new ArrayList<>();
        List<SweepMark> broken = new ArrayList<>();
        int budget = MAX_STEPS;
        boolean more = due.more();
        for (Tracked t : due.schedules()) {
            if (budget <= 0) {
                more = true; // left for the next sweep: its check time stays
                break;
            }
            try {
                Walk w = walk(t, now, Math.min(budget, FireWalk.MAX_STEPS));
                budget -= Math.max(1, w.result().fires().size());
                walks.add(w);
            } catch (RuntimeException e) {
                broken.add(new SweepMark(
                        t.jobKey(),
                        t.version(),
                        t.state(),
                        t.sweptUntil(),
                        now.plus(BROKEN_RETRY),
                        null,
                        0,
                        0,
                        String.valueOf(e.getMessage())));
                sweeper.broken(t.jobKey(), e);
            }
        }
        if (!broken.isEmpty()) {
            ledger.swept(broken, sweeper.node());
        }
        Map<String, Map<String, RunState>> states = states(walks);
        List<FirePlan> plans = new ArrayList<>();
        for (Walk w : walks) {
            Instant seen = w.tracked().seenAt();
            boolean orphan = w.local() == null && (seen == null || seen.isBefore(now.minus(sweeper.orphanedAfter())));
            plans.add(FirePlan.of(
                    w.tracked().jobKey(),
                    w.tracked().policy(),
                    w.result().fires(),
                    states.getOrDefault(w.tracked().jobKey(), Map.of()),
                    now,
                    w.result().cut(),
                    orphan ? (seen == null ? w.tracked().sweptUntil() : seen) : null));
        }
        return settle(now, walks, plans, more);
    }

    /** The job's fires due since its account stands, with the ledger's view of its pauses and versions. */
    private Walk walk(Tracked t, Instant now, int maxSteps) {
        ScheduledJob local = sweeper.local(t.jobKey());
        List<Span> spans = new ArrayList<>(t.spans());
        if (local != null) {
            spans = sweeper.pauses(t, local, now, spans);
        }
        List<FireWalk.Segment> segments = new ArrayList<>();
        for (ScheduleLedger.Version v : t.earlier()) {
            segments.add(new FireWalk.Segment(
                    v.version(), sweeper.schedule(t.jobKey(), v.kind(), v.expression(), local), v.from(), v.until()));
        }
        FireWalk.Segment current = new FireWalk.Segment(
                t.version(), sweeper.schedule(t.jobKey(), t.kind(), t.expression(), local), t.versionFrom(), null);
        segments.add(current);
        Instant to = now.minus(t.policy().grace());
        FireWalk.Result r = to.isAfter(t.sweptUntil())
                ? FireWalk.walk(t.jobKey(), segments, spans, t.sweptUntil(), to, maxSteps)
                : new FireWalk.Result(List.of(), t.sweptUntil(), false, 0);
        boolean paused =
                spans.stream().anyMatch(s -> s.until() == null && s.state().equals(ScheduleLedger.PAUSED));
        String state = t.state().equals(ScheduleLedger.RETIRED)
                ? ScheduleLedger.RETIRED
                : paused ? ScheduleLedger.PAUSED : ScheduleLedger.ACTIVE;
        return new Walk(t, local, state, segments, r);
    }

    /** The run states of every walked fire: by fire key for short walks, by the job's runs since for long ones. */
    private Map<String, Map<String, RunState>> states(List<Walk> walks) {
        Map<String, Map<String, RunState>> out = new HashMap<>();
        List<DueFire> byKey = new ArrayList<>();
        Map<String, Instant> since = new HashMap<>();
        for (Walk w : walks) {
            List<DueFire> fires = w.result().fires();
            if (fires.isEmpty()) {
                continue;
            }
            if (fires.size() <= BY_KEY) {
                byKey.addAll(fires);
            } else {
                since.put(w.tracked().jobKey(), fires.get(0).dueAt().minus(RUNS_BEFORE));
            }
        }
        for (int i = 0; i < byKey.size(); i += SETTLE_ROWS * 2) {
            for (FireStatus s : ledger.states(byKey.subList(i, Math.min(byKey.size(), i + SETTLE_ROWS * 2)))) {
                out.computeIfAbsent(s.fire().jobKey(), k -> new HashMap<>())
                        .put(s.fire().fireKey(), new RunState(s.fire().fireKey(), s.state(), s.error()));
            }
        }
        List<String> jobs = new ArrayList<>(since.keySet());
        for (int i = 0; i < jobs.size(); i += SETTLE_JOBS) {
            Map<String, Instant> part = new HashMap<>();
            jobs.subList(i, Math.min(jobs.size(), i + SETTLE_JOBS)).forEach(k -> part.put(k, since.get(k)));
            ledger.runsSince(part).forEach((job, runs) -> {
                Map<String, RunState> m = out.computeIfAbsent(job, k -> new HashMap<>());
                runs.forEach(r -> m.put(r.fireKey(), r));
            });
        }
        return out;
    }

    /** Records and marks the plans in transactions of bounded size, then hands out the catch-ups. */
    private Result settle(Instant now, List<Walk> walks, List<FirePlan> plans, boolean more) {
        List<DueFire> missed = new ArrayList<>();
        List<DueFire> catchUps = new ArrayList<>();
        long summarised = 0;
        int due = 0;
        int overdue = 0;
        int start = 0;
        while (start < plans.size()) {
            int end = start;
            int rows = 0;
            while (end < plans.size()
                    && end - start < SETTLE_JOBS
                    && (rows == 0 || rows + plans.get(end).rows().size() <= SETTLE_ROWS)) {
                rows += plans.get(end).rows().size()
                        + plans.get(end).summaries().size();
                end++;
            }
            List<Walk> ws = walks.subList(start, end);
            List<FirePlan> ps = plans.subList(start, end);
            List<Missed> toRecord = new ArrayList<>();
            List<Summary> summaries = new ArrayList<>();
            ps.forEach(p -> {
                toRecord.addAll(p.rows());
                summaries.addAll(p.summaries());
            });
            Settled settled = toRecord.isEmpty() && summaries.isEmpty() ? new Settled(Set.of(), Set.of()) : null;
            if (settled == null) {
                settled = ledger.settle(toRecord, summaries, s -> marks(now, ws, ps, s), sweeper.node());
            } else {
                ledger.swept(marks(now, ws, ps, settled), sweeper.node());
            }
            for (int i = 0; i < ps.size(); i++) {
                FirePlan p = ps.get(i);
                boolean written = !settled.busyJobs().contains(p.jobKey());
                due += p.fires().size();
                overdue += p.open().size();
                for (Missed m : p.rows()) {
                    if (settled.recorded().contains(m.fire())) {
                        missed.add(m.fire());
                        sweeper.metrics().fireMissed(p.jobKey(), p.codes().getOrDefault(m.fire(), "not_run"));
                    }
                }
                if (written) {
                    for (Summary s : p.summaries()) {
                        summarised += s.fires();
                        sweeper.metrics()
                                .firesMissed(p.jobKey(), p.summaryCodes().getOrDefault(s, "not_run"), s.fires());
                    }
                }
                sweeper.metrics().firesOverdue(p.jobKey(), p.open().size());
                sweeper.missedNow(ws.get(i).tracked(), p, settled.recorded(), written);
                if (written) {
                    // a busy job's plan is carried out by a later sweep, whole: catching up its newest fires while its
                    // older ones stay unrecorded would make the next sweep see others as the newest and catch them up
                    catchUps.addAll(
                            sweeper.catchUps(ws.get(i).local(), ws.get(i).tracked(), p));
                }
            }
            start = end;
        }
        more |= walks.stream().anyMatch(w -> w.result().cut());
        return new Result(now, due, overdue, missed, summarised, catchUps, more);
    }

    /** The marks of a batch, from what the ledger recorded. */
    private List<SweepMark> marks(Instant now, List<Walk> ws, List<FirePlan> ps, Settled settled) {
        List<SweepMark> marks = new ArrayList<>();
        for (int i = 0; i < ps.size(); i++) {
            Walk w = ws.get(i);
            FirePlan p = ps.get(i);
            Tracked t = w.tracked();
            if (settled.busyJobs().contains(t.jobKey())) {
                marks.add(new SweepMark(
                        t.jobKey(),
                        t.version(),
                        w.state(),
                        t.sweptUntil(),
                        now,
                        null,
                        p.open().size(),
                        0,
                        null));
                continue;
            }
            Instant until = p.sweptUntil(t.sweptUntil(), w.result().walkedTo(), settled.recorded(), true);
            boolean again = w.result().cut()
                    || p.running()
                    || !p.open().isEmpty()
                    || !until.equals(w.result().walkedTo());
            long missed = p.missedCount(settled.recorded(), true);
            try {
                Instant checkAt = again ? now : checkAt(w, until, now);
                Instant nextDue =
                        FireWalk.next(t.jobKey(), w.current().schedule(), now).orElse(null);
                marks.add(new SweepMark(
                        t.jobKey(),
                        t.version(),
                        w.state(),
                        until,
                        checkAt,
                        nextDue,
                        p.open().size(),
                        missed,
                        null));
            } catch (RuntimeException e) {
                // its schedule threw (or stood still) after the walk, e.g. in a sweep with no fire to walk yet: this
                // job's sweep fails, not the batch's, and what was recorded for it stays recorded
                marks.add(new SweepMark(
                        t.jobKey(),
                        t.version(),
                        w.state(),
                        until,
                        now.plus(BROKEN_RETRY),
                        null,
                        p.open().size(),
                        missed,
                        String.valueOf(e.getMessage())));
                sweeper.broken(t.jobKey(), e);
            }
        }
        return marks;
    }

    /**
     * When the job needs a sweep next: when its next fire after {@code until} is overdue, in whichever version it falls
     * (an earlier version's fire due just before a change comes before the new version's first); every sweep while it is
     * paused (a process that has the job tells when it resumes); null when it has no next fire. A retired job: when the
     * fires due before its retirement are past their grace, while its account has not reached the retirement (this
     * sweep walked only up to now minus the grace); then null, it leaves the sweeps.
     */
    private @Nullable Instant checkAt(Walk w, Instant until, Instant now) {
        Tracked t = w.tracked();
        if (w.state().equals(ScheduleLedger.RETIRED)) {
            Optional<Instant> retired = t.spans().stream()
                    .filter(s -> s.until() == null && s.state().equals(ScheduleLedger.RETIRED))
                    .map(Span::from)
                    .findFirst();
            if (retired.isPresent() && until.isBefore(retired.get())) {
                Instant at = retired.get().plus(t.policy().grace());
                return at.isAfter(now) ? at : now;
            }
            return null; // its account reached its retirement: it leaves the sweeps until it is registered again
        }
        if (w.state().equals(ScheduleLedger.PAUSED)) {
            return now.plus(w.local() != null ? sweeper.interval() : BROKEN_RETRY);
        }
        for (FireWalk.Segment s : w.segments()) {
            if (s.until() != null && !s.until().isAfter(until)) {
                continue;
            }
            Instant after =
                    s.from() != null && s.from().isAfter(until) ? s.from().minusNanos(1) : until;
            Optional<Instant> next = FireWalk.next(t.jobKey(), s.schedule(), after);
            if (next.isPresent() && (s.until() == null || next.get().isBefore(s.until()))) {
                return next.get().plus(t.policy().grace());
            }
        }
        return null;
    }
}
