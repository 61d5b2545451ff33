package dev.tenure.examples;

import dev.tenure.RunOutcome;
import dev.tenure.batch.BatchLaunch;
import dev.tenure.batch.GuardedJobOperator;
import java.time.Duration;
import java.time.LocalDate;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * One application process of the batch tour: {@code <node> <valkey> <jdbc url> <user> <password|->}. Starts the
 * {@link SettlementBatchConfig} context and launches the settlement job for business date 2024-05-01 through the
 * guard every 500 ms until the fire is done. Prints {@code CHUNK <first id> <epoch>} per chunk and
 * {@code LAUNCH <status> <execution id|-> <batch status|->} per launch, then {@code DONE}.
 */
public final class BatchTourNode {

    public static void main(String[] a) throws Exception {
        System.setProperty("demo.node", a[0]);
        System.setProperty("demo.valkey", a[1]);
        System.setProperty("demo.jdbcUrl", a[2]);
        System.setProperty("demo.user", a[3]);
        System.setProperty("demo.password", a[4].equals("-") ? "" : a[4]);
        try (AnnotationConfigApplicationContext ctx =
                new AnnotationConfigApplicationContext(SettlementBatchConfig.class)) {
            GuardedJobOperator guard = ctx.getBean(GuardedJobOperator.class);
            Job job = ctx.getBean(Job.class);
            JobParameters params = new JobParametersBuilder()
                    .addLocalDate("businessDate", LocalDate.of(2024, 5, 1))
                    .toJobParameters();
            System.out.println("READY");
            long deadline = System.currentTimeMillis() + 120_000;
            while (System.currentTimeMillis() < deadline) {
                BatchLaunch l = guard.launch(job, params);
                RunOutcome<Void> o = l.awaitOutcome(Duration.ofMinutes(2)).orElseThrow();
                System.out.println("LAUNCH " + o.status() + " "
                        + l.execution()
                                .map(e -> e.getId() + " " + e.getStatus())
                                .orElse("- -"));
                if (o.status() == RunOutcome.Status.EXECUTED || o.status() == RunOutcome.Status.SKIPPED_ALREADY_DONE) {
                    break;
                }
                Thread.sleep(500);
            }
        }
        System.out.println("DONE");
        System.exit(0);
    }
}
