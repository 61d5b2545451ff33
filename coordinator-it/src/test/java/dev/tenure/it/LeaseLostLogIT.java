package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.StderrCapture;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 35 item 7, one name per node: when the watchdog finds a lease lost, its WARN names the holder as the console
 * and the ledger's reasons do, by the node's name and the owner id's first four characters, not by the owner id. Real
 * Postgres: an operator force-releases a held lease, and the next renewal finds it gone.
 */
class LeaseLostLogIT {

    private static final String NODE = "web-1/invoicing/22418";

    @Test
    void aLeaseLostAtRenewal_isLoggedWithTheNodeNameAndAShortId() throws Exception {
        try (PostgresDatabase db = PostgresDatabases.forClass(LeaseLostLogIT.class);
                StderrCapture log = new StderrCapture();
                Tenure tenure = Tenure.builder()
                        .dataSource(db.dataSource())
                        .nodeName(NODE)
                        .build()) {
            Lease lease = tenure.databaseLeases()
                    .tryAcquire("nightly-export", LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                    .orElseThrow();
            CountDownLatch lost = new CountDownLatch(1);
            lease.onLost(l -> lost.countDown());
            TenureAdmin.create(db.dataSource()).forceRelease("nightly-export", "test: presumed dead", "LeaseLostLogIT");
            assertThat(lost.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                    .as("the watchdog finds the lease lost at its next renewal")
                    .isTrue();
            // the lease's listeners run as it is marked LOST, just before the watchdog writes its line
            org.awaitility.Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> !lines(log).isEmpty());
            List<String> lines = lines(log);
            lines.forEach(System.out::println);
            assertThat(lines)
                    .singleElement()
                    .asString()
                    .contains("WARN")
                    .contains("lease 'nightly-export' of " + NODE + "#"
                            + lease.owner().substring(0, 4) + " LOST: ")
                    .doesNotContain(lease.owner());
        }
    }

    private static List<String> lines(StderrCapture log) {
        return log.lines().stream()
                .filter(l -> l.contains("lease 'nightly-export'") && l.contains("LOST"))
                .toList();
    }
}
