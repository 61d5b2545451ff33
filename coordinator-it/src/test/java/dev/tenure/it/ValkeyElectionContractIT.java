package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.PoolConfig;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.ElectionParticipant;
import dev.tenure.testkit.LeaderElectionContract;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The leader-election contract with Valkey in front of the database: participants are Tenures on one real
 * {@code valkey-server} (started by the kit) and one real Postgres database; plus what only this configuration has (the
 * Valkey lease as a filter, and the database deciding alone while Valkey is unreachable).
 */
class ValkeyElectionContractIT extends LeaderElectionContract {

    private static CoordinatorServers servers;
    private static HikariDataSource pool;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(ValkeyElectionContractIT.class);
        pool = TenureDataSources.hikari(PoolConfig.builder(servers.db.jdbcUrl())
                .user(servers.db.username())
                .password(servers.db.password())
                .maxPoolSize(16)
                .build());
    }

    @AfterAll
    static void stop() {
        pool.close();
        servers.close();
    }

    @Override
    protected Tenure.Builder tenure() {
        return Tenure.builder()
                .dataSource(pool)
                .migrateSchema(false)
                .valkey(ValkeyConfig.standalone(servers.valkey.address())
                        .requestTimeout(Duration.ofMillis(300))
                        .build());
    }

    @Override
    protected DataSource dataSource() {
        return pool;
    }

    @Test
    void theLeaderHoldsTheRolesValkeyLease_andItsSuccessorTakesIt() {
        String role = role();
        ElectionParticipant a = participant(role, "a", LeaseOptions.ofTtl(Duration.ofSeconds(5)));
        Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(a.election()::isLeader);
        ElectionParticipant b = participant(role, "b", LeaseOptions.ofTtl(Duration.ofSeconds(5)));
        Object first = servers.valkey.command("GET", "{tenure:" + role + "}:lease");
        assertThat(first).as("the leader's Valkey lease").isNotNull();
        a.election().stop();
        Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(3))).until(b.election()::isLeader);
        assertThat(servers.valkey.command("GET", "{tenure:" + role + "}:lease"))
                .isNotNull()
                .isNotEqualTo(first);
    }

    @Test
    void valkeyUnreachable_theLeaderKeepsLeading_andTheDatabaseElectsAlone() {
        String role = role();
        LeaseOptions ttl = LeaseOptions.ofTtl(Duration.ofMillis(1500));
        ElectionParticipant a = participant(role, "a", ttl);
        Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(a.election()::isLeader);
        servers.valkey.pause();
        try {
            long until =
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(3); // unscaled: two TTLs, its Valkey lease is gone
            while (System.nanoTime() < until) {
                assertThat(a.election().isLeader())
                        .as("the database lease decides, not the Valkey lease")
                        .isTrue();
                sleep(20);
            }
            ElectionParticipant b = participant(role, "b", ttl);
            sleep(1500); // b finds Valkey unreachable and waits on the database
            long stopped = System.nanoTime();
            a.election().stop();
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .pollInterval(Duration.ofMillis(5))
                    .until(b.election()::isLeader);
            System.out.printf(
                    "Valkey paused: successor elected by the database alone %d ms after stop() began (stop() "
                            + "includes the Valkey release timing out: 300 ms)%n",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped));
            assertThat(a.events()).hasSize(2).last().isEqualTo("revoked stopped");
        } finally {
            servers.valkey.resume();
        }
    }
}
