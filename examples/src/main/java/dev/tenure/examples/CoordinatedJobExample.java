package dev.tenure.examples;

import dev.tenure.JobCoordinator;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * A coordinated job in the database mode (no Valkey: it runs without Valkey GLIDE on the class path). The fire's
 * business write and "this fire is done" commit in one fenced transaction ({@code completeInTransaction}); the same
 * fire run again (another instance, a retry, a late trigger) is skipped as already done. Then the next fire as a run
 * that is one transaction ({@code runInTransaction}: completed and released in the business commit). Prints the three
 * outcomes and the number of business rows (2).
 */
public final class CoordinatedJobExample {

    public static void main(String[] args) throws SQLException {
        try (ExampleServers servers = ExampleServers.postgres(CoordinatedJobExample.class)) {
            servers.sql("CREATE TABLE settlement (day text NOT NULL, epoch bigint NOT NULL)");
            run(servers.dataSource());
            servers.print("SELECT 'settlement rows: ' || count(*) FROM settlement");
        }
    }

    static void run(DataSource dataSource) throws SQLException {
        // tag::coordinated-job[]
        try (Tenure tenure = Tenure.builder().dataSource(dataSource).build()) {   // no valkey(...): the database mode
            JobCoordinator coordinator = tenure.coordinator();
            for (String attempt : List.of("first", "second")) {
                RunOutcome<Integer> o = coordinator.run("settlement", "2026-12-02", RunPolicy.skipFire(), ctx ->
                        // one transaction: fence (a stale owner rolls back), the work, "this fire is done", commit
                        ctx.completeInTransaction(dataSource, c ->
                                Sql.update(c, "INSERT INTO settlement VALUES (?, ?)", "2026-12-02", ctx.epoch())));
                System.out.println(attempt + " run: " + o.status() + (o.executed() ? " under epoch " + o.epoch() : "")
                        + ", completed in its own transaction: " + o.completedInTransaction());
            }
        }
        // end::coordinated-job[]
        try (Tenure tenure = Tenure.builder().dataSource(dataSource).build()) {
            // tag::one-transaction[]
            RunOutcome<Integer> o = tenure.coordinator().runInTransaction("settlement", "2026-12-03",
                    RunPolicy.skipFire(), dataSource, (ctx, c) ->
                            // the work, then one statement: epoch check, "this fire is done", job released; commit
                            Sql.update(c, "INSERT INTO settlement VALUES (?, ?)", "2026-12-03", ctx.epoch()));
            System.out.println("one-transaction run: " + o.status() + " under epoch " + o.epoch()
                    + ", completed in its own transaction: " + o.completedInTransaction());
            // end::one-transaction[]
        }
    }
}
