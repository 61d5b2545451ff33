package dev.tenure;

import dev.tenure.metrics.RunMetrics;
import dev.tenure.spi.ScheduleLedger;
import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.FireState;
import dev.tenure.spi.ScheduleLedger.FireStatus;
import dev.tenure.spi.ScheduleLedger.Missed;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accounts for every fire of the {@link ScheduledJob}s registered in this process: while this process leads the
 * sweeper election, it walks each job's schedule from where the last sweep stopped to {@code now - grace}, reads the
 * state of those fires in one statement, and applies the job's {@link MissedFirePolicy}: catch-ups go to Tenure's
 * catch-up thread, fires that will not run are recorded MISSED (one statement), and each job's position, next fire and
 * overdue count are stored (one statement). At most three statements per sweep, whatever the number of jobs: the
 * positions are read once per term and then kept, the fires are read only when some are due, and only jobs whose
 * position, next fire or count changed are written.
 *
 * <p>Two threads, both owned here and stopped by {@link #close()}: the sweep timer and the catch-up thread. Thread-safe.
 */
final class Sweeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger("dev.tenure.MissedFires");
    /** Fires examined per job and sweep at most: a long outage is worked through over several sweeps. */
    static final int MAX_FIRES_PER_JOB = 5000;

    private static final long FAULT_LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** What one sweep did (for tests and logs). */
    record Sweep(int due, int overdue, List<DueFire> missed, List<DueFire> catchUps) {
        static final Sweep NONE = new Sweep(0, 0, List.of(), List.of());
    }

    private final ScheduleLedger ledger;
    private final Clock clock;
    private final Duration interval;
    private final RunMetrics metrics;
    private final Function<LeaderElection.Listener, LeaderElection> elections;
    private final Map<String, ScheduledJob> jobs = new ConcurrentHashMap<>();
    /**
     * Catch-ups asked for and not settled yet: the fire, and the earliest time (nanoTime) it may be asked for again (0
     * while it is queued or runs). A catch-up that reaches the job asynchronously has that long to start.
     */
    private final Map<DueFire, Long> requested = new ConcurrentHashMap<>();

    private final ScheduledExecutorService timer;
    private final ExecutorService catchUps;
    private final Object lifecycle = new Object();
    private @Nullable LeaderElection election; // guarded by lifecycle
    private boolean closed; // guarded by lifecycle
    private volatile String node = "sweeper";
    /** The epoch of this node's current sweeper term; what it wrote in that term (sweep thread only). */
    private volatile long term;

    private long positionsTerm = -1;
    private final Map<String, ScheduleLedger.SweepMark> written = new HashMap<>();
    private long lastFaultLog = System.nanoTime() - FAULT_LOG_EVERY_NANOS;

    /**
     * @param elections makes the sweeper election (not started) with the given listener; started at the first
     *                  {@link #register}
     */
    Sweeper(
            ScheduleLedger ledger,
            Clock clock,
            Duration interval,
            RunMetrics metrics,
            Function<LeaderElection.Listener, LeaderElection> elections) {
        this.ledger = ledger;
        this.clock = clock;
        this.interval = interval;
        this.metrics = metrics;
        this.elections = elections;
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, daemon("tenure-sweeper"));
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
        this.catchUps = new ThreadPoolExecutor(
                1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(10_000), daemon("tenure-catch-up"));
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** Records the job's schedule and sweeps its fires from now on (in the process that leads the sweeper election). */
    ScheduleLedger.Registered register(ScheduledJob job, @Nullable String node) {
        ScheduleLedger.Registered r = ledger.register(new ScheduleLedger.ScheduleRow(
                job.jobKey(),
                job.schedule().kind(),
                job.schedule().expression(),
                describe(job.policy()),
                job.integration(),
                node));
        r.replaced()
                .ifPresent(old -> LOG.warn(
                        "job '{}': its schedule changes from {} {} (registered by {} at {}) to {} {} "
                                + "(this node, {}). Instances still running the old version fire by the old schedule until they "
                                + "are replaced; the sweeper follows the new one.",
                        job.jobKey(),
                        old.kind(),
                        old.expression(),
                        old.node(),
                        r.previousAt(),
                        job.schedule().kind(),
                        job.schedule().expression(),
                        node));
        jobs.put(job.jobKey(), job);
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("this Tenure is closed");
            }
            if (election == null) {
                election = elections.apply(new Leading());
                this.node = election.participantId();
                election.start();
                long period = interval.toMillis();
                timer.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
            }
        }
        return r;
    }

    /** The jobs registered here. */
    List<ScheduledJob> jobs() {
        return List.copyOf(jobs.values());
    }

    static String describe(MissedFirePolicy p) {
        String bounds = "max age " + p.maxAge() + ", grace " + p.grace();
        return switch (p.action()) {
            case CATCH_UP -> "catch-up (newest " + p.maxCatchUps() + ", " + bounds + ")";
            case SKIP -> "skip (" + bounds + ")";
            case ALERT_ONLY -> "alert-only (" + bounds + ")";
        };
    }

    private final class Leading implements LeaderElection.Listener {
        @Override
        public void elected(long epoch) {
            term = epoch;
            LOG.info("this node ({}) sweeps the fires of {} scheduled job(s) (epoch {})", node, jobs.size(), epoch);
        }

        @Override
        public void revoked(String reason) {
            LOG.info("this node ({}) no longer sweeps: {}", node, reason);
        }
    }

    private void tick() {
        LeaderElection e;
        synchronized (lifecycle) {
            e = election;
        }
        if (e == null || !e.isLeader()) {
            return;
        }
        try {
            sweep(clock.instant());
        } catch (RuntimeException ex) {
            long now = System.nanoTime();
            if (now - lastFaultLog >= FAULT_LOG_EVERY_NANOS) {
                lastFaultLog = now;
                LOG.warn(
                        "a sweep for missed fires failed; the next one tries again in {} (logged at most once a minute): {}",
                        interval,
                        ex.toString());
            }
        }
    }

    /** One sweep at {@code now} over the jobs registered here. */
    Sweep sweep(Instant now) {
        List<ScheduledJob> all = jobs();
        if (all.isEmpty()) {
            return Sweep.NONE;
        }
        Map<String, Instant> swept = positions(all);
        Map<String, List<DueFire>> dueByJob = new HashMap<>();
        List<DueFire> due = new ArrayList<>();
        for (ScheduledJob job : all) {
            List<DueFire> fires = dueBetween(
                    job,
                    swept.getOrDefault(job.jobKey(), now),
                    now.minus(job.policy().grace()));
            dueByJob.put(job.jobKey(), fires);
            due.addAll(fires);
        }
        Map<DueFire, FireStatus> states = new HashMap<>();
        if (!due.isEmpty()) {
            ledger.states(due).forEach(s -> states.put(s.fire(), s));
        }
        Map<String, Plan> plans = new HashMap<>();
        List<Missed> toRecord = new ArrayList<>();
        for (ScheduledJob job : all) {
            Plan p = plan(job, dueByJob.getOrDefault(job.jobKey(), List.of()), states, now);
            plans.put(job.jobKey(), p);
            toRecord.addAll(p.missed);
        }
        Set<DueFire> recorded = new HashSet<>(toRecord.isEmpty() ? List.of() : ledger.recordMissed(toRecord, node));
        List<ScheduleLedger.SweepMark> marks = new ArrayList<>();
        List<DueFire> catchUpsNow = new ArrayList<>();
        Set<DueFire> stillOpen = new HashSet<>();
        int overdueTotal = 0;
        for (ScheduledJob job : all) {
            Plan p = Objects.requireNonNull(plans.get(job.jobKey()));
            int missedNow = 0;
            for (Missed m : p.missed) {
                if (recorded.contains(m.fire())) {
                    missedNow++;
                    metrics.fireMissed(job.jobKey(), Objects.requireNonNull(p.reasonCode.get(m.fire())));
                    LOG.warn("job '{}': fire {} is recorded MISSED: {}", job.jobKey(), label(m.fire()), m.reason());
                }
            }
            int overdue =
                    (int) p.overdue.stream().filter(f -> !recorded.contains(f)).count();
            overdueTotal += overdue;
            metrics.firesOverdue(job.jobKey(), overdue);
            Instant until = sweptUntil(
                    swept.getOrDefault(job.jobKey(), now),
                    dueByJob.getOrDefault(job.jobKey(), List.of()),
                    states,
                    recorded);
            ScheduleLedger.SweepMark mark = new ScheduleLedger.SweepMark(
                    job.jobKey(), until, job.schedule().nextAfter(now).orElse(null), overdue, missedNow);
            if (!mark.equals(written.get(job.jobKey()))) {
                marks.add(mark);
            }
            for (DueFire f : p.catchUps) {
                if (catchUp(job, f, Objects.requireNonNull(p.reasonText.get(f)))) {
                    catchUpsNow.add(f);
                }
            }
            stillOpen.addAll(p.overdue);
        }
        requested.keySet().retainAll(stillOpen);
        if (!marks.isEmpty()) {
            ledger.swept(marks, node);
            marks.forEach(m -> written.put(m.jobKey(), m));
        }
        return new Sweep(due.size(), overdueTotal, List.copyOf(recorded), catchUpsNow);
    }

    /**
     * Where each job's sweep stands: read from the ledger at the first sweep of a term (another node may have swept
     * meanwhile), then known from this node's own writes. A job registered during the term is read once.
     */
    private Map<String, Instant> positions(List<ScheduledJob> all) {
        long t = term;
        if (t != positionsTerm) {
            written.clear();
            positionsTerm = t;
        }
        List<String> unknown = all.stream()
                .map(ScheduledJob::jobKey)
                .filter(k -> !written.containsKey(k))
                .toList();
        Map<String, Instant> out = new HashMap<>();
        if (!unknown.isEmpty()) {
            out.putAll(ledger.sweptUntil(unknown));
        }
        for (ScheduledJob job : all) {
            ScheduleLedger.SweepMark m = written.get(job.jobKey());
            if (m != null) {
                out.put(job.jobKey(), m.sweptUntil());
            }
        }
        return out;
    }

    /** The fires of {@code job} due after {@code from} and at or before {@code to}, oldest first. */
    static List<DueFire> dueBetween(ScheduledJob job, Instant from, Instant to) {
        List<DueFire> out = new ArrayList<>();
        Instant t = from;
        while (out.size() < MAX_FIRES_PER_JOB) {
            Optional<Instant> next = job.schedule().nextAfter(t);
            if (next.isEmpty() || next.get().isAfter(to)) {
                break;
            }
            if (!next.get().isAfter(t)) {
                throw new IllegalStateException("the schedule of job '" + job.jobKey() + "' ("
                        + job.schedule().kind() + " " + job.schedule().expression() + ") does not move forward after "
                        + t);
            }
            t = next.get();
            out.add(new DueFire(job.jobKey(), job.schedule().fireKey(t), t));
        }
        return out;
    }

    /** What to do with one job's due fires. */
    record Plan(
            List<DueFire> overdue,
            List<Missed> missed,
            List<DueFire> catchUps,
            Map<DueFire, String> reasonText,
            Map<DueFire, String> reasonCode) {}

    static Plan plan(ScheduledJob job, List<DueFire> fires, Map<DueFire, FireStatus> states, Instant now) {
        MissedFirePolicy policy = job.policy();
        List<DueFire> overdue = new ArrayList<>();
        Map<DueFire, String> text = new HashMap<>();
        Map<DueFire, String> code = new HashMap<>();
        for (DueFire f : fires) {
            FireStatus s = states.get(f);
            FireState state = s == null ? FireState.NONE : s.state();
            if (state.settled() || state == FireState.RUNNING) {
                continue;
            }
            overdue.add(f);
            text.put(f, why(state, s == null ? null : s.error()));
            code.put(f, code(state, s == null ? null : s.error()));
        }
        Instant oldest = now.minus(policy.maxAge());
        List<Missed> missed = new ArrayList<>();
        List<DueFire> catchUps = new ArrayList<>();
        List<DueFire> young = new ArrayList<>();
        for (DueFire f : overdue) {
            if (f.dueAt().isBefore(oldest)) {
                missed.add(new Missed(f, text.get(f) + "; older than the policy's max age " + policy.maxAge()));
            } else {
                young.add(f);
            }
        }
        switch (policy.action()) {
            case SKIP -> young.forEach(f -> missed.add(new Missed(f, text.get(f) + "; policy SKIP")));
            case ALERT_ONLY -> {}
            case CATCH_UP -> {
                int keep = Math.min(policy.maxCatchUps(), young.size());
                for (int i = 0; i < young.size() - keep; i++) {
                    DueFire f = young.get(i);
                    missed.add(new Missed(
                            f,
                            text.get(f) + "; not caught up: only the newest " + policy.maxCatchUps()
                                    + " overdue fires are"));
                }
                catchUps.addAll(young.subList(young.size() - keep, young.size()));
            }
        }
        return new Plan(overdue, missed, catchUps, text, code);
    }

    private static String why(FireState state, @Nullable String error) {
        return switch (state) {
            case NONE -> "no node ran it";
            case RUNNING_LEASE_ENDED -> "its holder's lease ended while it ran (the holder died, froze or was cut off)";
            case ABANDONED -> "its run was abandoned" + (error == null ? "" : ": " + error);
            case REJECTED_STALE ->
                "its holder lost its lease (paused or cut off) and was refused" + (error == null ? "" : ": " + error);
            default -> state.name();
        };
    }

    /** A short tag for meters: not_run, holder_lost, shutdown, force_released, abandoned or rejected_stale. */
    static String code(FireState state, @Nullable String error) {
        return switch (state) {
            case NONE -> "not_run";
            case RUNNING_LEASE_ENDED -> "holder_lost";
            case ABANDONED ->
                error != null && error.contains("shut down")
                        ? "shutdown"
                        : error != null && error.contains("force-released") ? "force_released" : "abandoned";
            case REJECTED_STALE -> "rejected_stale";
            default -> state.name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    /** The latest fire time up to which every examined fire is settled (or recorded MISSED now). */
    private static Instant sweptUntil(
            Instant from, List<DueFire> fires, Map<DueFire, FireStatus> states, Set<DueFire> recorded) {
        Instant until = from;
        for (DueFire f : fires) {
            FireStatus s = states.get(f);
            boolean settled = recorded.contains(f) || (s != null && s.state().settled());
            if (!settled) {
                break;
            }
            until = f.dueAt();
        }
        return until;
    }

    private static String label(DueFire f) {
        return f.fireKey().equals(f.dueAt().toString()) ? f.fireKey() : f.fireKey() + " (due " + f.dueAt() + ")";
    }

    /**
     * Hands a catch-up to the catch-up thread, unless one of this fire runs, or ended less than a grace period ago (plus
     * a random share of another, so that a catch-up refused because the job was busy is not asked again in step with the
     * schedule, at the moment the next regular fire holds the job).
     */
    private boolean catchUp(ScheduledJob job, DueFire fire, String why) {
        long now = System.nanoTime();
        Long notBefore = requested.get(fire);
        if (notBefore != null && (notBefore == 0 || now - notBefore < 0)) {
            return false;
        }
        requested.put(fire, 0L);
        try {
            catchUps.execute(() -> {
                try {
                    if (!isClosed()) {
                        LOG.info("job '{}': catching up fire {}: {}", job.jobKey(), label(fire), why);
                        job.catchUp().run(fire.fireKey());
                    }
                } catch (Exception | AssertionError e) {
                    LOG.warn(
                            "job '{}': the catch-up of fire {} failed; the next sweep looks again",
                            job.jobKey(),
                            fire.fireKey(),
                            e);
                } finally {
                    long grace = job.policy().grace().toNanos();
                    long next = System.nanoTime()
                            + grace
                            + ThreadLocalRandom.current().nextLong(grace + 1);
                    requested.replace(fire, 0L, next == 0 ? 1 : next);
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            requested.remove(fire);
            return false;
        }
    }

    private boolean isClosed() {
        synchronized (lifecycle) {
            return closed;
        }
    }

    /**
     * Stops sweeping (resigns the election) and the two threads: catch-ups still queued are dropped, one in progress may
     * finish for a while.
     */
    @Override
    public void close() {
        LeaderElection e;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            e = election;
        }
        timer.shutdownNow();
        if (e != null) {
            e.stop();
        }
        catchUps.shutdown();
        try {
            if (!catchUps.awaitTermination(interval.toMillis() + 5_000, TimeUnit.MILLISECONDS)) {
                catchUps.shutdownNow();
            }
        } catch (InterruptedException ex) {
            catchUps.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
