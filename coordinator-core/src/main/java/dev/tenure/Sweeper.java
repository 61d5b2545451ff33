package dev.tenure;

import dev.tenure.metrics.RunMetrics;
import dev.tenure.spi.ScheduleLedger;
import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.Span;
import dev.tenure.spi.ScheduleLedger.Tracked;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

// Over 400 lines: the sweep timer, the election, registrations and housekeeping share one lifecycle lock; one sweep
// is a SweepRound, its log lines a SweepLog, the catch-ups CatchUps.
/**
 * Accounts for every fire of every schedule in the ledger. Each process registers its jobs' schedules
 * ({@link #register}), keeps its registrations alive, and runs the catch-ups that a sweeper asks of the jobs it has. The
 * process that leads the sweeper election of its application sweeps that application's schedules as the ledger holds
 * them ({@link SweepRound}), those that other processes registered too: catch-ups of its own jobs run on its catch-up
 * thread, those of jobs it does not have are asked of the processes that have them. It also retires schedules that no
 * live process registered for a while, and reports schedules that nobody sweeps.
 *
 * <p>Two threads, both stopped by {@link #close()}: the sweep timer, owned here, and the catch-up thread of its
 * {@link CatchUps}. Thread-safe.
 */
final class Sweeper implements AutoCloseable {

    static final Logger LOG = LoggerFactory.getLogger("dev.tenure.MissedFires");

    /** The default application of schedules whose registrar names none. */
    static final String DEFAULT_APPLICATION = "default";

    static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final long HOUSEKEEPING_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How long a leader works through a backlog in one tick before it lets the next tick come. */
    private static final long BACKLOG_NANOS = TimeUnit.SECONDS.toNanos(20);
    /** Every how many ticks the leader looks for catch-up requests of its jobs (other processes do every tick). */
    private static final int LEADER_TAKES_EVERY = 10;

    private final ScheduleLedger ledger;
    private final Clock clock;
    private final Duration interval;
    private final Duration retireAfter;
    private final RunMetrics metrics;
    private final @Nullable RunTimes runTimes;
    private final String application;
    private final String node;
    private final Function<LeaderElection.Listener, LeaderElection> elections;
    private final Map<String, ScheduledJob> jobs = new ConcurrentHashMap<>();
    private final Map<String, Function<String, Schedule>> readers = new ConcurrentHashMap<>();
    /** The ledger's time of the last sweep that found each local job active: where a pause found later starts. */
    private final Map<String, Instant> lastActive = new ConcurrentHashMap<>();
    /** When each broken job was last logged (nanoTime). */
    private final Map<String, Long> brokenLogged = new ConcurrentHashMap<>();

    private final ScheduledExecutorService timer;
    private final CatchUps catchUpRuns;
    private final Object lifecycle = new Object();
    /** What the sweeps recorded, as log lines (sweep thread). */
    private final SweepLog sweepLog = new SweepLog();

    private @Nullable LeaderElection election; // guarded by lifecycle
    private boolean closed; // guarded by lifecycle
    private long ledAt; // nanoTime of this term's start (sweep thread)
    private long ticks; // sweep thread
    private volatile boolean leading;

    private long lastFaultLog = System.nanoTime() - LOG_EVERY_NANOS;
    private long lastSkewLog = System.nanoTime() - 10 * LOG_EVERY_NANOS;
    private long lastHousekeeping = System.nanoTime() - HOUSEKEEPING_EVERY_NANOS;
    private long lastSeen = System.nanoTime() - HOUSEKEEPING_EVERY_NANOS;
    private Set<String> lastUnswept = Set.of();

    /**
     * @param settings  its clock (only compared with the ledger's, to warn of skew), sweep interval, retirement delay,
     *                  application and node name
     * @param elections makes the sweeper election of this application (not started) with the given listener; started
     *                  at the first {@link #register}
     */
    Sweeper(
            ScheduleLedger ledger,
            Settings settings,
            RunMetrics metrics,
            Function<LeaderElection.Listener, LeaderElection> elections) {
        this.ledger = ledger;
        this.clock = settings.clock();
        this.interval = settings.sweepInterval();
        this.retireAfter = settings.retireSchedulesAfter();
        this.metrics = metrics;
        this.runTimes = metrics instanceof RunTimes t ? t : null;
        this.application = settings.application();
        this.node = settings.nodeName();
        this.elections = elections;
        readers.put("fixed-rate", Schedule.FixedRate::read);
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, daemon("tenure-sweeper"));
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
        this.catchUpRuns = new CatchUps(ledger, settings, runTimes, jobs, t, daemon("tenure-catch-up"), this::isClosed);
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** The name of the sweeper election of {@code application}. */
    static String electionName(String application) {
        return DEFAULT_APPLICATION.equals(application) ? "tenure-sweeper" : "tenure-sweeper:" + application;
    }

    /**
     * Records the job's schedule in the ledger and takes part in accounting for its fires from now on (a schedule new
     * to the ledger: from {@code firstFire}, the first fire the host scheduler fires, if known).
     */
    ScheduleLedger.Registered register(ScheduledJob job, @Nullable Instant firstFire) {
        ScheduleLedger.Registered r = ledger.register(row(job, firstFire));
        registered(job, r);
        return r;
    }

    /** {@link #register} for many jobs (no first fires known), written to the ledger in a few statements. */
    List<ScheduleLedger.Registered> registerAll(List<ScheduledJob> all) {
        List<ScheduleLedger.ScheduleRow> rows = new ArrayList<>(all.size());
        all.forEach(j -> rows.add(row(j, null)));
        List<ScheduleLedger.Registered> answers = ledger.registerAll(rows);
        for (int i = 0; i < all.size(); i++) {
            registered(all.get(i), answers.get(i));
        }
        return answers;
    }

    private ScheduleLedger.ScheduleRow row(ScheduledJob job, @Nullable Instant firstFire) {
        return new ScheduleLedger.ScheduleRow(
                job.jobKey(),
                application,
                job.schedule().kind(),
                job.schedule().expression(),
                job.policy(),
                describe(job.policy()),
                job.integration(),
                node,
                firstFire);
    }

    /** What a registration leaves here: its warnings logged, the job known, the sweeper's election started. */
    private void registered(ScheduledJob job, ScheduleLedger.Registered r) {
        r.replaced()
                .ifPresent(old -> LOG.warn(
                        "job '{}': its schedule changes from {} {} (registered by {} at {}) to {} {} (this node, {}), "
                                + "version {} from now on. Each version's fires are accounted for while it is in force; "
                                + "instances still running the old version fire by the old schedule until they are replaced.",
                        job.jobKey(),
                        old.kind(),
                        old.expression(),
                        old.node(),
                        r.previousAt(),
                        job.schedule().kind(),
                        job.schedule().expression(),
                        node,
                        r.version()));
        if (r.reactivated()) {
            LOG.info("job '{}': its schedule was retired and is active again", job.jobKey());
        }
        job.schedule()
                .reader()
                .ifPresent(reader -> readers.putIfAbsent(job.schedule().kind(), reader));
        jobs.put(job.jobKey(), job);
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("this Tenure is closed");
            }
            if (election == null) {
                election = elections.apply(new Leading());
                election.start();
                long period = interval.toMillis();
                timer.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
            }
        }
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
            leading = true;
            LOG.info(
                    "this node ({}) sweeps the fires of application '{}' (epoch {}); it has {} of its job(s)",
                    node,
                    application,
                    epoch,
                    jobs.size());
        }

        @Override
        public void revoked(String reason) {
            leading = false;
            metrics.notSweeping();
            LOG.info("this node ({}) no longer sweeps the fires of application '{}': {}", node, application, reason);
        }
    }

    private void tick() {
        LeaderElection e;
        synchronized (lifecycle) {
            e = election;
        }
        if (e == null || isClosed()) {
            return;
        }
        try {
            keepRegistrations();
            boolean leader = e.isLeader();
            // the leader catches its own jobs up directly: requests for them are left by an earlier leader only
            if (!leader || ++ticks % LEADER_TAKES_EVERY == 0) {
                catchUpRuns.take();
            }
            if (!leader) {
                if (ledAt != 0) {
                    metrics.notSweeping(); // this node's figures are the live sweeper's no more
                }
                ledAt = 0;
                return;
            }
            if (ledAt == 0) {
                ledAt = System.nanoTime();
            }
            long until = System.nanoTime() + BACKLOG_NANOS;
            SweepRound.Result r;
            do {
                r = sweep();
            } while (r.more() && System.nanoTime() - until < 0 && !isClosed() && e.isLeader());
            housekeeping();
        } catch (RuntimeException ex) {
            long now = System.nanoTime();
            if (now - lastFaultLog >= LOG_EVERY_NANOS) {
                lastFaultLog = now;
                LOG.warn(
                        "a sweep for missed fires failed; the next one tries again in {} (logged at most once a minute): {}",
                        interval,
                        ex.toString());
            }
        }
    }

    /** One sweep of this application's schedules that need one now. */
    SweepRound.Result sweep() {
        SweepRound.Result r = new SweepRound(this, ledger).run();
        sweepLog.report(r);
        return r;
    }

    /** Called by a sweep round for each plan it settled (sweep thread). */
    void missedNow(Tracked t, FirePlan p, Set<DueFire> recorded, boolean summariesWritten) {
        sweepLog.missed(t, p, recorded, summariesWritten);
    }

    // ---- what a sweep round asks of the sweeper

    String application() {
        return application;
    }

    String node() {
        return node;
    }

    Duration interval() {
        return interval;
    }

    RunMetrics metrics() {
        return metrics;
    }

    @Nullable
    ScheduledJob local(String jobKey) {
        return jobs.get(jobKey);
    }

    /**
     * The schedule of a version: this process's own if it registered the job with that schedule, else read from the
     * ledger's text by the reader of its kind.
     *
     * @throws IllegalStateException if no reader of the kind is known here
     */
    Schedule schedule(String jobKey, String kind, String expression, @Nullable ScheduledJob local) {
        if (local != null
                && local.schedule().kind().equals(kind)
                && local.schedule().expression().equals(expression)) {
            return local.schedule();
        }
        Function<String, Schedule> reader = readers.get(kind);
        if (reader == null) {
            throw new IllegalStateException("this node (" + node + ") cannot read schedules of kind '" + kind
                    + "' (" + expression + "): only a process that registered a job of that kind can sweep job '"
                    + jobKey + "'");
        }
        return reader.apply(expression);
    }

    /**
     * The spans of a local job with what its host scheduler says now: a pause found now is recorded in the ledger from
     * the last sweep that found the job active (or where its account stands), a resumption ends the open span now.
     */
    List<Span> pauses(Tracked t, ScheduledJob local, Instant now, List<Span> spans) {
        Optional<String> why = pausedBecause(local);
        boolean open =
                spans.stream().anyMatch(s -> s.until() == null && s.state().equals(ScheduleLedger.PAUSED));
        if (why.isPresent()) {
            if (!open && t.state().equals(ScheduleLedger.ACTIVE)) {
                Instant from = lastActive.getOrDefault(t.jobKey(), t.sweptUntil());
                if (from.isBefore(t.sweptUntil())) {
                    from = t.sweptUntil();
                }
                ledger.pause(t.jobKey(), from, why.get(), node);
                LOG.info(
                        "job '{}' is paused ({}): its fires from {} on are not due until it resumes",
                        t.jobKey(),
                        why.get(),
                        from);
                List<Span> out = new ArrayList<>(spans);
                out.add(new Span(ScheduleLedger.PAUSED, from, null, why.get()));
                return out;
            }
            return spans;
        }
        lastActive.put(t.jobKey(), now);
        if (open && t.state().equals(ScheduleLedger.PAUSED)) {
            // the pause is known to have lasted until the last sweep that found it (a sweep looks at a paused job every
            // interval): if the sweeper that saw it stopped, the time nobody looked is not excused
            Instant confirmed = t.sweptAt() == null ? now : t.sweptAt().plus(interval.multipliedBy(2));
            Instant until = confirmed.isBefore(now) ? confirmed : now;
            ledger.resume(t.jobKey(), until, node);
            LOG.info("job '{}' resumed: its fires from {} on are due again", t.jobKey(), until);
            List<Span> out = new ArrayList<>();
            for (Span s : spans) {
                out.add(
                        s.until() == null && s.state().equals(ScheduleLedger.PAUSED)
                                ? new Span(s.state(), s.from(), until.isBefore(s.from()) ? s.from() : until, s.reason())
                                : s);
            }
            return out;
        }
        return spans;
    }

    static Optional<String> pausedBecause(ScheduledJob job) {
        try {
            return job.pause().pausedBecause();
        } catch (RuntimeException e) {
            return Optional.empty(); // a pause check that throws counts as active: its fires stay accounted for
        }
    }

    /** A job whose sweep failed: logged at most once a minute per job. */
    void broken(String jobKey, RuntimeException e) {
        long now = System.nanoTime();
        Long last = brokenLogged.get(jobKey);
        if (last == null || now - last >= LOG_EVERY_NANOS) {
            brokenLogged.put(jobKey, now);
            LOG.warn(
                    "job '{}': its sweep failed, its fires are not accounted for until it works (the other jobs are "
                            + "swept as usual; logged at most once a minute): {}",
                    jobKey,
                    e.toString());
        }
    }

    /** Warns when this node's clock is more than half the smallest grace off the ledger's. */
    void checkClock(Instant ledgerNow, long sentMillis, long receivedMillis) {
        long local = sentMillis + (receivedMillis - sentMillis) / 2;
        long skew = local - ledgerNow.toEpochMilli();
        metrics.clockSkew(Duration.ofMillis(skew));
        long bound = jobs.values().stream()
                        .map(j -> j.policy().grace())
                        .min(Comparator.naturalOrder())
                        .orElse(MissedFirePolicy.DEFAULT_GRACE)
                        .toMillis()
                / 2;
        long now = System.nanoTime();
        if (Math.abs(skew) > bound && now - lastSkewLog >= 10 * LOG_EVERY_NANOS) {
            lastSkewLog = now;
            LOG.warn(
                    "this node's clock is {} ms {} the database's, more than half the smallest grace ({} ms): fire keys "
                            + "computed from it may name the wrong slot. The database's clock decides what is due; "
                            + "synchronise this node's clock (NTP). Logged at most every 10 minutes.",
                    Math.abs(skew),
                    skew > 0 ? "ahead of" : "behind",
                    bound * 2);
        }
    }

    // ---- catch-ups

    /** Hands out a plan's catch-ups ({@link CatchUps#hand}); the fires asked for the first time. */
    List<DueFire> catchUps(@Nullable ScheduledJob local, Tracked t, FirePlan p) {
        return catchUpRuns.hand(local, t, p);
    }

    // ---- registrations, retirement, unswept schedules

    /** How long after a registration was last marked alive no live process is taken to have the job. */
    Duration orphanedAfter() {
        return seenEvery().multipliedBy(3).plus(interval);
    }

    private Duration seenEvery() {
        Duration d = retireAfter.dividedBy(4);
        return d.compareTo(Duration.ofMinutes(1)) < 0 ? d : Duration.ofMinutes(1);
    }

    /** Marks this process's registrations alive, once every {@link #seenEvery()}. */
    private void keepRegistrations() {
        long now = System.nanoTime();
        if (jobs.isEmpty() || now - lastSeen < seenEvery().toNanos()) {
            return;
        }
        ledger.seen(List.copyOf(jobs.keySet()), seenEvery().dividedBy(2));
        lastSeen = now;
    }

    /**
     * The leader's chores every 30 s, or every mark period if that is shorter (a short retire-after is kept within a
     * mark): retire what nobody registers, report what nobody sweeps.
     */
    private void housekeeping() {
        long now = System.nanoTime();
        if (now - lastHousekeeping
                < Math.min(HOUSEKEEPING_EVERY_NANOS, seenEvery().toNanos())) {
            return;
        }
        lastHousekeeping = now;
        if (now - ledAt >= 2 * seenEvery().toNanos()) {
            // the processes alive now had time to mark their registrations since this term began
            List<String> retired = ledger.retireUnseen(retireAfter, node);
            if (!retired.isEmpty()) {
                LOG.info(
                        "retired {} schedule(s) that no live process registered for {}: {} (they leave the sweeps and "
                                + "health checks until a process registers them again)",
                        retired.size(),
                        retireAfter,
                        retired.size() > 10 ? retired.subList(0, 10) + " and more" : retired);
            }
        }
        Duration behind = interval.multipliedBy(3).compareTo(Duration.ofMinutes(1)) > 0
                ? interval.multipliedBy(3)
                : Duration.ofMinutes(1);
        List<ScheduleLedger.Unswept> unswept = ledger.unswept(behind, 100);
        metrics.schedulesUnswept(unswept.size());
        Set<String> keys = new java.util.TreeSet<>();
        unswept.forEach(
                u -> keys.add(u.jobKey() + " (application " + u.application() + ", due since " + u.dueSince() + ")"));
        if (!keys.isEmpty() && !keys.equals(lastUnswept)) {
            LOG.warn(
                    "{} schedule(s) have not been swept for more than {}: their missed fires are not accounted for. Is "
                            + "a process of their application running, and can it read their schedules? {}",
                    keys.size(),
                    behind,
                    keys.size() > 10 ? List.copyOf(keys).subList(0, 10) + " and more" : keys);
        }
        lastUnswept = keys;
    }

    static String label(DueFire f) {
        return f.fireKey().equals(f.dueAt().toString()) ? f.fireKey() : f.fireKey() + " (due " + f.dueAt() + ")";
    }

    boolean isLeading() {
        return leading;
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
        metrics.notSweeping();
        catchUpRuns.close(interval.plusSeconds(5));
    }
}
