package dev.tenure.bench.coordinated;

import dev.tenure.JobCoordinator;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One node of the scale benchmark ({@link ScaleBenchmark}), used as an application would use Tenure: it registers
 * {@code jobs} jobs ({@code job-0} ...) with {@link Tenure#register}, each on a {@link SlotSchedule} of period
 * {@code periodMs} (slots spread over the period, or all at its top), so the sweeper and missed-fire accounting run as
 * in production; then, as the host scheduler of every instance does, it fires every job at every slot on a pool of
 * {@code threads} workers: {@code runInTransaction(job, fire, skipFire(), ds, insert one row)}. Catch-ups come from
 * Tenure's sweeper and run the same work with {@code waitUpTo(ttl)}, as the Spring Boot starter's do.
 *
 * <p>The GO line ({@code GO <warm-up end> <end> <w0 ms> <w1 ms> <origin ms>}) gives the schedules' origin, a second
 * after it ({@link SlotSchedule}: no fire is due before it), and the measured window in wall-clock
 * time: attempts of fires due in the window are counted by outcome. Firing stops at a STOP line. With
 * {@code unfired=K}, no node fires jobs 0 to K-1 in the window: the sweeper must catch them up or record them MISSED.
 */
final class ScheduledWorkload implements Node.Workload {

    private static final Duration CATCH_UP_WAIT = Duration.ofSeconds(30);

    private final Node n;
    private final boolean valkey;
    private final Duration period;
    private final boolean spread;
    private final Duration sweep;
    private final Duration grace;
    private final MissedFirePolicy policy;
    /** Jobs 0 to unfired - 1 are not fired in the window (a fault injected to see the sweeper account for them). */
    private final int unfired;

    private final SlotSchedule[] schedules;
    private final AtomicLong origin = new AtomicLong(Long.MAX_VALUE);
    private Tenure tenure;
    private JobCoordinator coordinator;
    private ThreadPoolExecutor workers;
    private volatile Tally tally;
    private volatile boolean stopped;
    private volatile long w0 = Long.MAX_VALUE;
    private volatile long w1 = Long.MAX_VALUE;
    private double registerSeconds;

    /** Attempts of fires due in the window, by outcome; catch-ups of such fires. */
    private final LongAdder executed = new LongAdder();

    private final LongAdder held = new LongAdder();
    private final LongAdder done = new LongAdder();
    private final LongAdder refusedMissed = new LongAdder();
    private final LongAdder other = new LongAdder();
    private final LongAdder catchUps = new LongAdder();
    private final LongAdder catchUpsExecuted = new LongAdder();
    /** Regular fires due in the window: from the fire time to the call, in microseconds (the host scheduler's lag). */
    private final Histogram lag = new Histogram(3_600_000_000L, 3);

    ScheduledWorkload(Node n) {
        this.n = n;
        this.valkey = n.arg("mode").equals("VALKEY");
        this.period = Duration.ofMillis(Long.parseLong(n.arg("periodMs")));
        this.spread = n.arg("slots").equals("spread");
        this.sweep = Duration.ofMillis(Long.parseLong(n.arg("sweepMs")));
        this.grace = Duration.ofMillis(Long.parseLong(n.arg("graceMs")));
        this.policy = MissedFirePolicy.catchUp()
                .withGrace(grace)
                .withAction(
                        switch (n.arg("policy")) {
                            case "catch-up" -> MissedFirePolicy.Action.CATCH_UP;
                            case "skip" -> MissedFirePolicy.Action.SKIP;
                            case "alert-only" -> MissedFirePolicy.Action.ALERT_ONLY;
                            default -> throw new IllegalArgumentException("policy=" + n.arg("policy"));
                        });
        this.unfired = Integer.parseInt(n.arg("unfired"));
        this.schedules = new SlotSchedule[n.jobs];
        for (int j = 0; j < n.jobs; j++) {
            schedules[j] = new SlotSchedule(period, SlotSchedule.offset(j, n.jobs, period, spread), origin);
        }
    }

    @Override
    public void prepare() throws Exception {
        Tenure.Builder b =
                Tenure.builder().dataSource(n.ds).migrateSchema(false).sweepInterval(sweep);
        if (valkey) {
            b.valkey(ValkeyConfig.standalone(n.arg("valkey"))
                            .clientName("bench-node-" + n.node)
                            .build())
                    .mode(JobCoordinator.Mode.VALKEY);
        }
        tenure = b.build();
        coordinator = tenure.coordinator();
        for (int i = 0; i < 20; i++) { // untimed priming: connects Valkey, loads the classes
            RunOutcome<Void> o = attempt("prime-" + n.node, "p" + i, RunPolicy.skipFire());
            if (o.status() != RunOutcome.Status.EXECUTED) {
                throw new IllegalStateException("priming run " + i + " of node " + n.node + " gave " + o);
            }
        }
        workers = new ThreadPoolExecutor(
                n.threads,
                n.threads,
                0,
                TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(),
                r -> new Thread(r, "host-scheduler"));
        long start = System.nanoTime();
        register();
        registerSeconds = (System.nanoTime() - start) / 1e9;
    }

    /** Registers every job in one bulk registration ({@link Tenure#registerAll}). */
    private void register() {
        List<ScheduledJob> all = new ArrayList<>(n.jobs);
        for (int j = 0; j < n.jobs; j++) {
            String job = "job-" + j;
            all.add(ScheduledJob.of(job, schedules[j], fire -> catchUp(job, fire))
                    .withPolicy(policy));
        }
        tenure.registerAll(all);
    }

    private RunOutcome<Void> attempt(String job, String fire, RunPolicy policy) {
        return coordinator.runInTransaction(job, fire, policy, n.ds, (ctx, c) -> n.insert(c, job, fire));
    }

    @Override
    public void run(Tally t) throws Exception {
        w0 = Long.parseLong(n.go[3]);
        w1 = Long.parseLong(n.go[4]);
        origin.set(Long.parseLong(n.go[5]));
        tally = t;
        Thread stop = new Thread(this::awaitStop, "bench-stop");
        stop.setDaemon(true);
        stop.start();
        dispatch();
        workers.shutdown();
        if (!workers.awaitTermination(10, TimeUnit.SECONDS)) { // a node that fell behind drops the rest
            workers.shutdownNow();
        }
    }

    private void awaitStop() {
        try {
            String line;
            while ((line = n.stdin.readLine()) != null && !line.equals("STOP")) {
                // nothing else is sent
            }
        } catch (java.io.IOException ignored) {
            // the benchmark is gone: stop as well
        }
        stopped = true;
    }

    /** The host scheduler: every job's fires in time order from the origin, handed to the workers when due. */
    private void dispatch() {
        long p = period.toMillis();
        long periodStart = Math.floorDiv(origin.get(), p) * p;
        int j = 0;
        while (j < n.jobs && schedules[j].fireAt(periodStart) < origin.get()) {
            j++;
        }
        while (!stopped) {
            if (j == n.jobs) {
                j = 0;
                periodStart += p;
            }
            long due = schedules[j].fireAt(periodStart);
            long wait = due - System.currentTimeMillis();
            if (wait > 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(wait, 100)));
                continue;
            }
            String job = "job-" + j;
            String fire = schedules[j].fireKey(Instant.ofEpochMilli(due));
            if (j >= unfired || due < w0 || due >= w1) {
                workers.execute(() -> fire(job, fire, due));
            }
            j++;
        }
    }

    private void fire(String job, String fire, long due) {
        long called = System.currentTimeMillis();
        boolean inWindow = due >= w0 && due < w1;
        if (inWindow) {
            synchronized (lag) {
                lag.recordValue(Math.max(0, called - due) * 1000);
            }
        }
        count(job, fire, inWindow, false, RunPolicy.skipFire());
    }

    private void catchUp(String job, String fire) {
        long due = Instant.parse(fire).toEpochMilli();
        boolean inWindow = due >= w0 && due < w1;
        if (inWindow) {
            catchUps.increment();
        }
        count(job, fire, inWindow, true, RunPolicy.waitUpTo(CATCH_UP_WAIT));
    }

    private void count(String job, String fire, boolean inWindow, boolean isCatchUp, RunPolicy policy) {
        Tally t = tally;
        long start = System.nanoTime();
        try {
            RunOutcome<Void> o = attempt(job, fire, policy);
            if (t != null) {
                switch (o.status()) {
                    case EXECUTED -> t.unit(start, System.nanoTime());
                    case SKIPPED_HELD_ELSEWHERE -> t.held.increment();
                    case SKIPPED_ALREADY_DONE, SKIPPED_MISSED -> t.done.increment();
                    default -> t.error(o.status() + " " + job + "/" + fire + ": " + o.error());
                }
            }
            if (inWindow) {
                (switch (o.status()) {
                            case EXECUTED -> isCatchUp ? catchUpsExecuted : executed;
                            case SKIPPED_HELD_ELSEWHERE -> held;
                            case SKIPPED_ALREADY_DONE -> done;
                            case SKIPPED_MISSED -> refusedMissed;
                            default -> other;
                        })
                        .increment();
            }
        } catch (RuntimeException e) {
            if (inWindow) {
                other.increment();
            }
            if (t != null) {
                t.error(e.toString());
            }
        }
    }

    @Override
    public String result() {
        Histogram h;
        synchronized (lag) {
            h = lag.copy();
        }
        ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int len = h.encodeIntoCompressedByteBuffer(buf);
        byte[] bytes = new byte[len];
        buf.flip();
        buf.get(bytes);
        return String.format(
                Locale.ROOT,
                "register_s=%.2f w_executed=%d w_held=%d w_done=%d w_refused_missed=%d "
                        + "w_other=%d w_catchups=%d w_catchups_executed=%d lag=%s",
                registerSeconds,
                executed.sum(),
                held.sum(),
                done.sum(),
                refusedMissed.sum(),
                other.sum(),
                catchUps.sum(),
                catchUpsExecuted.sum(),
                Base64.getEncoder().encodeToString(bytes));
    }

    @Override
    public void close() {
        if (workers != null) {
            workers.shutdownNow();
        }
        if (tenure != null) {
            tenure.close();
        }
    }
}
