package dev.tenure;

import dev.tenure.spi.ScheduleLedger;
import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.Tracked;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The catch-ups of one {@link Sweeper}: a plan's catch-ups go to the catch-up thread for a job this process has, or to
 * the ledger for another process's, and each waits for a gap between the job's regular fires (unless it starves). The
 * catch-up thread is owned here and stopped by {@link #close}.
 */
final class CatchUps {

    /** Catch-up requests a process takes per tick at most. */
    private static final int TAKE_LIMIT = 50;

    private final ScheduleLedger ledger;
    private final Clock clock;
    private final String application;
    private final String node;
    private final @Nullable RunTimes runTimes;
    /** The sweeper's registered jobs (live). */
    private final Map<String, ScheduledJob> jobs;
    /** The sweeper's timer: a catch-up that waits for a gap is queued again through it. */
    private final ScheduledExecutorService timer;

    private final ExecutorService thread;
    private final BooleanSupplier closed;
    /**
     * Catch-ups asked for and not settled yet: the fire, and the earliest time (nanoTime) it may be asked for again (0
     * while it is queued or runs). A catch-up that reaches the job asynchronously has that long to start.
     */
    private final Map<DueFire, Long> requested = new ConcurrentHashMap<>();

    CatchUps(
            ScheduleLedger ledger,
            Settings settings,
            @Nullable RunTimes runTimes,
            Map<String, ScheduledJob> jobs,
            ScheduledExecutorService timer,
            ThreadFactory threads,
            BooleanSupplier closed) {
        this.ledger = ledger;
        this.clock = settings.clock();
        this.application = settings.application();
        this.node = settings.nodeName();
        this.runTimes = runTimes;
        this.jobs = jobs;
        this.timer = timer;
        this.closed = closed;
        this.thread =
                new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(100_000), threads);
    }

    /**
     * Hands out a plan's catch-ups: to the catch-up thread for a local job, to the ledger for another process's.
     *
     * @return the fires asked for the first time (a fire asked again after a grace period is not reported again)
     */
    List<DueFire> hand(@Nullable ScheduledJob local, Tracked t, FirePlan p) {
        List<DueFire> out = new ArrayList<>();
        List<DueFire> remote = new ArrayList<>();
        for (DueFire f : p.catchUps()) {
            if (!due(f)) {
                continue;
            }
            boolean first = !requested.containsKey(f);
            if (local != null) {
                if (catchUp(local, f, p.catchUpReasons().getOrDefault(f, "")) && first) {
                    out.add(f);
                }
            } else {
                requested.put(f, System.nanoTime() + retryNanos(t.policy()));
                remote.add(f);
                if (first) {
                    out.add(f);
                }
            }
        }
        if (!remote.isEmpty()) {
            ledger.requestCatchUps(remote, node);
        }
        Set<DueFire> open = new java.util.HashSet<>(p.open());
        for (DueFire f : p.fires()) {
            if (!open.contains(f)) {
                requested.remove(f); // settled: a later catch-up of it would be refused anyway
            }
        }
        return out;
    }

    /** False while a catch-up of the fire is queued or runs, or ended less than a grace period ago. */
    private boolean due(DueFire fire) {
        Long notBefore = requested.get(fire);
        return notBefore == null || (notBefore != 0 && System.nanoTime() - notBefore >= 0);
    }

    private static long retryNanos(MissedFirePolicy p) {
        long grace = p.grace().toNanos();
        return grace + ThreadLocalRandom.current().nextLong(grace + 1);
    }

    /**
     * Hands a catch-up to the catch-up thread. After it ran (or failed), it may be asked for again a grace period later,
     * plus a random share of another, so that a catch-up refused because the job was busy is not asked again in step
     * with the schedule, at the moment the next regular fire holds the job. A job paused meanwhile is not run.
     */
    private boolean catchUp(ScheduledJob job, DueFire fire, String why) {
        requested.put(fire, 0L);
        try {
            thread.execute(new CatchUpRun(job, fire, why, 0));
            return true;
        } catch (RejectedExecutionException e) {
            requested.remove(fire);
            return false;
        }
    }

    /** How recently a regular run of a job must have ended here for its catch-ups to yield to its regular fires. */
    private static final long REGULAR_SEEN_NANOS = TimeUnit.MINUTES.toNanos(5);

    /** How many times a catch-up waits for a gap before it goes back to the sweeper (which asks again later). */
    private static final int MAX_YIELDS = 3;

    /** Periods of a job with none of its catch-ups started after which a waiting one runs anyway ({@link #starved}). */
    private static final int STARVED_PERIODS = 3;

    /** By job: since when (nanoTime) its catch-ups wait for a gap with none of them started. */
    private final Map<String, Long> waiting = new ConcurrentHashMap<>();

    /**
     * True when the job's catch-ups have waited for a gap for {@value #STARVED_PERIODS} of its periods and none of them
     * started: a job whose runs take most of its period leaves no gap, and its catch-ups then run anyway (late, each
     * meeting at most one regular fire) rather than wait until their fires pass {@code maxAge}. While catch-ups find
     * gaps, the wait starts again at each one.
     */
    private boolean starved(ScheduledJob job) {
        long now = System.nanoTime();
        long period = periodNanos(job);
        Long since =
                waiting.compute(job.jobKey(), (k, v) -> v == null || now - v > 10 * STARVED_PERIODS * period ? now : v);
        return now - since > STARVED_PERIODS * period;
    }

    /** The gap between the job's next two fires; a second if its schedule cannot say. */
    private long periodNanos(ScheduledJob job) {
        long second = TimeUnit.SECONDS.toNanos(1);
        try {
            Optional<Instant> a = job.schedule().nextAfter(clock.instant());
            Optional<Instant> b = a.isPresent() ? job.schedule().nextAfter(a.get()) : Optional.empty();
            return a.isPresent() && b.isPresent()
                    ? Math.max(second / 10, Duration.between(a.get(), b.get()).toNanos())
                    : second;
        } catch (RuntimeException e) {
            return second;
        }
    }

    /** One catch-up on the catch-up thread; it yields to the job's regular fires (see {@link #yieldNanos}). */
    private final class CatchUpRun implements Runnable {
        private final ScheduledJob job;
        private final DueFire fire;
        private final String why;
        private final int yields;

        CatchUpRun(ScheduledJob job, DueFire fire, String why, int yields) {
            this.job = job;
            this.fire = fire;
            this.why = why;
            this.yields = yields;
        }

        @Override
        public void run() {
            long retry = retryNanos(job.policy());
            try {
                Optional<String> pause = Sweeper.pausedBecause(job);
                long yield = pause.isPresent() ? 0 : yieldNanos(job);
                if (pause.isPresent()) {
                    Sweeper.LOG.debug(
                            "job '{}': fire {} is not caught up: the job is paused ({})",
                            job.jobKey(),
                            Sweeper.label(fire),
                            pause.get());
                } else if (yield > 0 && !starved(job)) {
                    Sweeper.LOG.debug(
                            "job '{}': the catch-up of fire {} waits for a gap: the next regular fire comes before it "
                                    + "would end",
                            job.jobKey(),
                            Sweeper.label(fire));
                    if (yields < MAX_YIELDS && later(yield)) {
                        return; // still queued: requested stays 0
                    }
                    retry = yield;
                } else if (!closed.getAsBoolean()) {
                    waiting.remove(job.jobKey());
                    Sweeper.LOG.debug("job '{}': catching up fire {}: {}", job.jobKey(), Sweeper.label(fire), why);
                    RunTimes.asCatchUp(job.catchUp(), fire.fireKey());
                }
            } catch (Exception | AssertionError e) {
                Sweeper.LOG.warn(
                        "job '{}': the catch-up of fire {} failed; the next sweep looks again: {}",
                        job.jobKey(),
                        fire.fireKey(),
                        e.toString());
            }
            long next = System.nanoTime() + retry;
            requested.replace(fire, 0L, next == 0 ? 1 : next);
        }

        /** Runs this catch-up again after {@code nanos}, on the catch-up thread; false if this sweeper is closing. */
        private boolean later(long nanos) {
            try {
                timer.schedule(
                        () -> {
                            try {
                                thread.execute(new CatchUpRun(job, fire, why, yields + 1));
                            } catch (RejectedExecutionException e) {
                                requested.remove(fire);
                            }
                        },
                        nanos,
                        TimeUnit.NANOSECONDS);
                return true;
            } catch (RejectedExecutionException e) {
                return false;
            }
        }
    }

    /**
     * Catch-ups never starve the regular fires: a catch-up starts only in a gap long enough for it, going by how long the
     * job's last run took here (plus a quarter, at least 100 ms; the wait for the job not counted), before the job's next
     * regular fire. Otherwise it
     * yields: it may be asked again once that fire had the time to run. A job that has not run here yet, whose length is not
     * known, catches up at once. So does a job registered by your own code (not by Spring's scheduler or Quartz here)
     * whose regular fires did not run here in the last five minutes: there is nothing here to yield to. A regular fire that comes while a catch-up runs anyway waits for it as its run policy
     * says (Spring's {@code @Coordinated(maxWait)}, Quartz's wait), or is skipped and caught up in turn.
     *
     * @return 0 to start now; else how long to wait before asking again (nanoseconds)
     */
    private long yieldNanos(ScheduledJob job) {
        Duration last = runTimes == null ? null : runTimes.last(job.jobKey());
        Long regular = runTimes == null ? null : runTimes.lastRegular(job.jobKey());
        boolean hostFires =
                job.integration().equals("scheduled") || job.integration().equals("quartz");
        if (last == null || (!hostFires && (regular == null || System.nanoTime() - regular > REGULAR_SEEN_NANOS))) {
            return 0; // no regular fire of the job is known to run here: there is nothing to yield to
        }
        long took = last.toNanos();
        long need = took + Math.max(TimeUnit.MILLISECONDS.toNanos(100), took / 4);
        Instant now = clock.instant();
        Optional<Instant> next;
        try {
            next = job.schedule().nextAfter(now);
        } catch (RuntimeException e) {
            return 0; // a schedule that cannot say: the sweep of the job reports it
        }
        if (next.isEmpty()) {
            return 0;
        }
        long until = Duration.between(now, next.get()).toNanos();
        return until >= need ? 0 : until + need;
    }

    /** Runs the catch-ups that a sweeper asked of jobs this process has. */
    void take() {
        if (jobs.isEmpty()) {
            return;
        }
        for (DueFire f : ledger.takeCatchUps(jobs.keySet(), TAKE_LIMIT)) {
            ScheduledJob job = jobs.get(f.jobKey());
            if (job != null && due(f)) {
                catchUp(job, f, "asked by the sweeper of application '" + application + "'");
            }
        }
    }

    /** Drops the catch-ups still queued; one in progress may finish within {@code wait}. */
    void close(Duration wait) {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException ex) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
