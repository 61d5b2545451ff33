package dev.tenure.bench.coordinated;

import dev.tenure.DatabaseConfig;
import dev.tenure.JobCoordinator;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Tenure's coordinated runs through the public API: {@code tenure.coordinator().runInTransaction(job, fire,
 * skipFire(), ds, (ctx, c) -> insert one row)} (a run that is one transaction; {@code api=tx}, the default) or
 * {@code run(job, fire, skipFire(), ctx -> ctx.completeInTransaction(ds, insert one row))} ({@code api=run}), in
 * {@code mode=VALKEY} (Valkey lease in front, fail closed) or {@code mode=DATABASE} (no Valkey).
 *
 * <ul>
 * <li>{@code jobs=1}: one job fired as fast as it completes. The nodes share one fire sequence f0, f1, ...: a node
 *     moves to the next fire when it ran the fire or found it done elsewhere, and asks again for the same fire after
 *     {@code retryUs} when another node holds the job. One thread per node.</li>
 * <li>{@code jobs=N}: each thread takes the next (job, round) of its node's walk ({@link Node#jobIndex}, round = i / N)
 *     and runs that fire once, whatever the outcome. {@code fires=own}: fire keys are
 *     the node's own ({@code n<k>-r<round>}), so every attempt is a fire of its own and only a job held by another
 *     node at that moment is skipped; {@code fires=shared}: every node fires every (job, round) ({@code r<round>}),
 *     as when each node of a cluster fires the same schedule, and Tenure runs each fire once.</li>
 * </ul>
 */
final class TenureWorkload implements Node.Workload {

    private final Node n;
    private final boolean valkey;
    private final boolean sharedFires;
    private final long retryNanos;
    private final boolean oneTransaction;
    private Tenure tenure;
    private JobCoordinator coordinator;

    TenureWorkload(Node n) {
        this.n = n;
        this.valkey = n.arg("mode").equals("VALKEY");
        this.sharedFires = n.args.getOrDefault("fires", "own").equals("shared");
        this.retryNanos = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(n.args.getOrDefault("retryUs", "1000")));
        this.oneTransaction = n.args.getOrDefault("api", "tx").equals("tx");
    }

    @Override
    public void prepare() throws Exception {
        Tenure.Builder b = Tenure.builder().dataSource(n.ds).migrateSchema(false);
        String observed = n.args.getOrDefault("observations", "none");
        if (!observed.equals("none")) {
            b.observationRegistry(Observations.registry(observed));
        }
        // claim statements in flight and claims per statement (DatabaseConfig); --node-opts may set the defaults
        int perStatement = Integer.parseInt(n.args.getOrDefault(
                "claimsPerStatement",
                Integer.toString(Integer.getInteger(
                        "tenure.claimsPerStatement", DatabaseConfig.DEFAULT_MAX_CLAIMS_PER_STATEMENT))));
        int inFlight = Integer.getInteger("tenure.claimsInFlight", DatabaseConfig.DEFAULT_CLAIM_STATEMENTS_IN_FLIGHT);
        b.database(DatabaseConfig.builder()
                .maxClaimsPerStatement(perStatement)
                .claimStatementsInFlight(inFlight)
                .build());
        if (valkey) {
            b.valkey(ValkeyConfig.standalone(n.arg("valkey"))
                            .clientName("bench-node-" + n.node)
                            // -Dtenure.inflight=N through --node-opts: script calls in flight per node (default 2)
                            .maxInFlightBatches(Integer.getInteger("tenure.inflight", 2))
                            .build())
                    .mode(JobCoordinator.Mode.VALKEY);
        }
        tenure = b.build();
        coordinator = tenure.coordinator();
        // untimed priming: connects Valkey, loads the classes, prepares the statements on one connection
        for (int i = 0; i < 20; i++) {
            RunOutcome<Void> o = attempt("prime-" + n.node, "p" + i);
            if (o.status() != RunOutcome.Status.EXECUTED) {
                throw new IllegalStateException("priming run " + i + " of node " + n.node + " gave " + o);
            }
        }
    }

    private RunOutcome<Void> attempt(String job, String fire) {
        if (oneTransaction) {
            return coordinator.runInTransaction(
                    job, fire, RunPolicy.skipFire(), n.ds, (ctx, c) -> n.insert(c, job, fire));
        }
        return coordinator.run(
                job, fire, RunPolicy.skipFire(), ctx -> ctx.completeInTransaction(n.ds, c -> n.insert(c, job, fire)));
    }

    @Override
    public void run(Tally tally) throws Exception {
        List<Thread> threads = new ArrayList<>();
        if (n.jobs == 1) {
            if (n.threads != 1) {
                throw new IllegalArgumentException("jobs=1 runs one thread per node (got threads=" + n.threads + ")");
            }
            threads.add(new Thread(() -> oneJob(tally), "tenure-one-job"));
        } else {
            AtomicLong seq = new AtomicLong();
            for (int t = 0; t < n.threads; t++) {
                threads.add(new Thread(() -> manyJobs(tally, seq), "tenure-jobs-" + t));
            }
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
    }

    private void oneJob(Tally tally) {
        long fire = 0;
        while (tally.running()) {
            long start = System.nanoTime();
            RunOutcome.Status s = count(tally, "job-0", "f" + fire, start);
            if (s == RunOutcome.Status.SKIPPED_HELD_ELSEWHERE) {
                LockSupport.parkNanos(retryNanos); // the holder runs this fire: ask again shortly
            } else {
                fire++;
            }
        }
    }

    private void manyJobs(Tally tally, AtomicLong seq) {
        while (tally.running()) {
            long i = seq.getAndIncrement();
            long round = i / n.jobs;
            count(
                    tally,
                    "job-" + n.jobIndex(i),
                    sharedFires ? "r" + round : "n" + n.node + "-r" + round,
                    System.nanoTime());
        }
    }

    /** One attempt, counted; null status for an exception. */
    private RunOutcome.Status count(Tally tally, String job, String fire, long start) {
        try {
            RunOutcome<Void> o = attempt(job, fire);
            switch (o.status()) {
                case EXECUTED -> tally.unit(start, System.nanoTime());
                case SKIPPED_HELD_ELSEWHERE -> tally.held.increment();
                case SKIPPED_ALREADY_DONE -> tally.done.increment();
                default -> tally.error(o.status() + " " + job + "/" + fire + ": " + o.error());
            }
            return o.status();
        } catch (RuntimeException e) {
            tally.error(e.toString());
            return null;
        }
    }

    @Override
    public void close() {
        if (tenure != null) {
            tenure.close();
        }
    }
}
