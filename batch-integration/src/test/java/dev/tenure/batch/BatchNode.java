package dev.tenure.batch;

import dev.tenure.JobContext;
import dev.tenure.RunOutcome;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.time.LocalDate;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;
import org.springframework.core.task.SyncTaskExecutor;

/**
 * One application process of the fault tests:
 * {@code <valkey> <jdbc url> <user> <password|-> <once|until-done> <job> <item ms> <ttl ms> <start at epoch ms>}.
 * Launches the settlement job for business date 2024-05-01 through the guard at the start time; {@code until-done}
 * keeps launching (every 300 ms) until the fire is done. Prints {@code READY}, {@code CHUNK <first id> <epoch>}
 * per chunk, {@code LAUNCH <status> <execution id|-> <batch status|-> <exit description>} per launch, {@code DONE}.
 */
public final class BatchNode {

    public static void main(String[] a) throws Exception {
        String node = Long.toString(ProcessHandle.current().pid());
        try (BatchStack s = new BatchStack(
                a[0],
                a[1],
                a[2],
                a[3].equals("-") ? "" : a[3],
                Duration.ofMillis(Long.parseLong(a[7])),
                new SyncTaskExecutor())) {
            boolean untilDone = a[4].equals("until-done");
            Job job = s.settlementJob(
                    a[5],
                    node,
                    Long.parseLong(a[6]),
                    first -> System.out.println(
                            "CHUNK " + first + " " + JobContext.current().epoch()));
            JobParameters params = new JobParametersBuilder()
                    .addLocalDate("businessDate", LocalDate.of(2024, 5, 1))
                    .toJobParameters();
            GuardedJobOperator guard = s.tenure.guard(s.operator, s.repository);
            System.out.println("READY");
            long sleep = Long.parseLong(a[8]) - System.currentTimeMillis();
            if (sleep > 0) {
                Thread.sleep(sleep);
            }
            long deadline = System.currentTimeMillis() + Timing.scaledMillis(120_000);
            while (System.currentTimeMillis() < deadline) {
                BatchLaunch l = guard.launch(job, params);
                RunOutcome<Void> o = l.awaitOutcome(Duration.ofSeconds(120)).orElseThrow();
                JobExecution e = l.execution().orElse(null);
                System.out.println("LAUNCH " + o.status() + " " + (e == null ? "- -" : e.getId() + " " + e.getStatus())
                        + " " + (e == null ? "" : firstLine(e.getExitStatus().getExitDescription())));
                boolean done = o.status() == RunOutcome.Status.EXECUTED
                        || o.status() == RunOutcome.Status.SKIPPED_ALREADY_DONE;
                if (!untilDone || done) {
                    break;
                }
                Thread.sleep(300);
            }
        }
        System.out.println("DONE");
        System.exit(0);
    }

    private static String firstLine(String s) {
        String line = s.lines().findFirst().orElse("");
        return line.length() > 160 ? line.substring(0, 160) : line;
    }
}
