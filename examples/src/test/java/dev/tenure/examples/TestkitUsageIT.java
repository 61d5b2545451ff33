package dev.tenure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How users test code built on Tenure against real servers with tenure-testkit (the kit's README takes its snippets
 * from here): a valkey-server and a fresh Postgres database per class, and a fault (Valkey frozen) in the middle.
 */
class TestkitUsageIT {

    // tag::testkit-servers[]
    static ValkeyServer valkey;
    static PostgresDatabase db;

    @BeforeAll
    static void startServers() {
        valkey = ValkeyServers.standalone();                     // a private valkey-server on a free port
        db = PostgresDatabases.forClass(TestkitUsageIT.class);   // a fresh database, dropped by close()
    }

    @AfterAll
    static void stopServers() {
        valkey.close();
        db.close();
    }
    // end::testkit-servers[]

    // tag::testkit-fault[]
    @Test
    void aJobRuns_throughTheDatabase_whileValkeyIsFrozen() {
        ValkeyConfig config = ValkeyConfig.standalone(valkey.address()).requestTimeout(Duration.ofMillis(200)).build();
        try (Tenure tenure = Tenure.builder().dataSource(db.dataSource()).valkey(config).build()) {
            valkey.pause();                                      // SIGSTOP: Valkey stops answering
            try {
                RunOutcome<String> o = tenure.coordinator().run("nightly", "2026-12-02", RunPolicy.skipFire(), ctx -> "done");
                assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
                assertThat(o.viaFallback()).isTrue();
            } finally {
                valkey.resume();                                 // also kill(), restart() (same port, empty)
            }
        }
    }
    // end::testkit-fault[]
}
