package dev.tenure.examples;

import dev.tenure.MissedFirePolicy;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Every fire accounted for, in the database mode: two jobs on a one-second schedule that no node runs for three
 * seconds (as if every instance were down). Tenure's sweeper catches the fires of "settlement" up through the
 * coordinator, and records those of "reports" MISSED, since its policy skips them. Prints each catch-up, then the fires
 * of each job as the ledger has them.
 */
public final class MissedFiresExample {

    public static void main(String[] args) throws Exception {
        try (ExampleServers servers = ExampleServers.postgres(MissedFiresExample.class)) {
            servers.sql("CREATE TABLE settlement (fire text NOT NULL, epoch bigint NOT NULL)");
            run(servers.dataSource());
            servers.print("SELECT 'settlement: ' || count(*) || ' fires caught up, ' || "
                    + "(SELECT count(*) FROM settlement) || ' settlement rows' FROM tenure.job_run "
                    + "WHERE job_key = 'settlement' AND status = 'COMPLETED'");
            servers.print("SELECT 'reports: ' || count(*) || ' fires recorded MISSED' FROM tenure.job_run "
                    + "WHERE job_key = 'reports' AND status = 'MISSED'");
        }
    }

    static void run(DataSource dataSource) throws InterruptedException {
        try (Tenure tenure = Tenure.builder()
                .dataSource(dataSource)
                .sweepInterval(Duration.ofMillis(200))
                .build()) {
            // tag::missed-fires[]
            tenure.register(ScheduledJob.of("settlement", Schedule.fixedRate(Duration.ofSeconds(1)),
                    fireKey -> {                                          // how a catch-up reaches the job
                        RunOutcome<Integer> o = tenure.coordinator().run("settlement", fireKey, RunPolicy.waitUpTo(Duration.ofSeconds(5)),
                                ctx -> ctx.completeInTransaction(dataSource, c ->
                                        Sql.update(c, "INSERT INTO settlement VALUES (?, ?)", fireKey, ctx.epoch())));
                        System.out.println("caught up " + fireKey + ": " + o.status());
                    })
                    .withPolicy(MissedFirePolicy.catchUp().withMaxCatchUps(10).withGrace(Duration.ofMillis(300))));
            tenure.register(ScheduledJob.of("reports", Schedule.fixedRate(Duration.ofSeconds(1)), fireKey -> { })
                    .withPolicy(MissedFirePolicy.skip().withGrace(Duration.ofMillis(300))));
            // end::missed-fires[]
            Thread.sleep(3_500); // nobody runs a fire meanwhile
        }
    }
}
