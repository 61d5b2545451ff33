package dev.tenure.examples;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.Leases;
import dev.tenure.LockPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Plain locks ({@code tenure.leases()}, on Valkey): {@code acquire} with a wait, {@code runLocked} with a
 * failure policy, and fencing tokens, Valkey's (monotonic while Valkey keeps its data) and the database's (an epoch that
 * {@code tenure.fence} checks inside the transaction that writes with it). Prints one line per step.
 */
public final class PlainLockExample {

    public static void main(String[] args) throws SQLException {
        try (ExampleServers servers = ExampleServers.postgresAndValkey(PlainLockExample.class)) {
            servers.sql("CREATE TABLE export (epoch bigint NOT NULL)");
            DataSource dataSource = servers.dataSource();
            String valkeyAddress = servers.valkeyAddress();
            // tag::tenure[]
            Tenure tenure = Tenure.builder()
                    .dataSource(dataSource)                                  // Tenure's schema is migrated here
                    .valkey(ValkeyConfig.standalone(valkeyAddress).build())  // optional: plain locks then live in Valkey
                    .build();                                                // one per application, thread-safe
            // end::tenure[]
            try (tenure) {
                locks(tenure.leases());
                fencedWrite(tenure, dataSource);
            }
        }
    }

    static void locks(Leases leases) {
        // tag::plain-lock[]
        // wait up to 500 ms for a 3 s lease; empty = held elsewhere: tell the user to retry
        try (Lease lease = leases.acquire("coupon-42", Duration.ofMillis(500), Duration.ofSeconds(3)).orElseThrow()) {
            boolean second = leases.tryAcquire("coupon-42").isPresent();   // someone else, meanwhile
            lease.ensureValid();                                             // right before the write
            System.out.println("coupon-42 locked; a second tryAcquire got it too: " + second);
        }

        // acquire, run, release in finally; failFast: empty at once if held elsewhere
        Optional<String> r = leases.runLocked("product-7", LockPolicy.failFast(), lease -> "settled " + lease.key());
        System.out.println("runLocked: " + r.orElse("held elsewhere"));

        // Valkey's fencing token: an INCR per acquisition (monotonic while Valkey keeps its data)
        for (int i = 0; i < 2; i++) {
            try (Lease lease = leases.tryAcquire("report", leases.defaults().withFencingToken(true)).orElseThrow()) {
                System.out.println("report token " + lease.fencingToken().getAsLong());
            }
        }
        // end::plain-lock[]
    }

    static void fencedWrite(Tenure tenure, DataSource dataSource) throws SQLException {
        // tag::database-lease[]
        LeaseOptions withToken = LeaseOptions.ofDefaults().withFencingToken(true);   // the token is the epoch
        try (Lease lease = tenure.databaseLeases().tryAcquire("ledger-export", withToken).orElseThrow();
             Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            tenure.fence(c, lease);   // StaleOwnerException if another owner took over since: nothing commits
            Sql.update(c, "INSERT INTO export VALUES (?)", lease.fencingToken().getAsLong());
            c.commit();
            System.out.println("ledger-export written under epoch " + lease.fencingToken().getAsLong());
        }
        // end::database-lease[]
    }
}
