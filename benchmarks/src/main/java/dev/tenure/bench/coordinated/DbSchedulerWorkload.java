package dev.tenure.bench.coordinated;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/**
 * db-scheduler: one scheduler instance per node (three JVMs, like Tenure's three processes, so each instance has its
 * own pool, executor and JIT as in a real cluster) on a backlog of one-time executions that are all due
 * ({@link CoordinatedBenchmark} inserts them before the nodes start). {@code threads} executor threads,
 * {@code pollUsingLockAndFetch(0.5, 1.0)} (select-for-update-skip-locked picking, the strategy its documentation
 * gives for throughput on Postgres), defaults otherwise. The task inserts the business row (autocommit); db-scheduler
 * then deletes the execution. A unit is one execution whose business row committed.
 */
final class DbSchedulerWorkload implements Node.Workload {

    static final String TASK = "bench-task";
    private final Node n;
    private volatile Tally tally;
    private Scheduler scheduler;

    DbSchedulerWorkload(Node n) {
        this.n = n;
    }

    @Override
    public void prepare() {
        OneTimeTask<Void> task = Tasks.oneTime(TASK).execute((instance, ctx) -> {
            long start = System.nanoTime();
            try (Connection c = n.ds.getConnection();
                    PreparedStatement ps = c.prepareStatement(n.insertSql())) {
                ps.setString(1, TASK);
                ps.setString(2, instance.getId());
                ps.setInt(3, n.node);
                ps.executeUpdate();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            Tally t = tally;
            if (t != null) {
                t.units.increment(); // no latency: an execution's time in the backlog is not comparable
            }
        });
        scheduler = Scheduler.create(n.ds, task)
                .threads(n.threads)
                .pollUsingLockAndFetch(0.5, 1.0)
                .schedulerName(new SchedulerName.Fixed("node-" + n.node))
                .shutdownMaxWait(Duration.ofSeconds(5))
                .build();
    }

    @Override
    public void run(Tally tally) {
        this.tally = tally;
        scheduler.start();
        Tally.sleepUntil(tally.end() + Tally.GRACE_NANOS);
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.stop();
        }
    }
}
