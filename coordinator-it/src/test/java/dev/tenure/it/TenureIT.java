package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.Holder;
import dev.tenure.JobCoordinator;
import dev.tenure.LeaderElection;
import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.StaleOwnerException;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.Timing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The entry point on real servers: one builder, the database mode by leaving Valkey out, what it hands out and closes. */
class TenureIT {

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(TenureIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    private static Tenure.Builder base() {
        return Tenure.builder()
                .dataSource(servers.db.dataSource())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(5)));
    }

    @Test
    void withoutValkey_theDatabaseMode_leasesAndRunsOnTheDatabase() throws Exception {
        try (Tenure tenure = base().build()) {
            assertThat(tenure.usesValkey()).isFalse();
            assertThat(tenure.coordinator().mode()).isEqualTo(JobCoordinator.Mode.DATABASE);
            assertThat(tenure.leases()).isSameAs(tenure.databaseLeases());
            RunOutcome<Integer> o = tenure.coordinator()
                    .run(
                            "tenure-it",
                            "f1",
                            RunPolicy.skipFire(),
                            ctx -> ctx.completeInTransaction(servers.db.dataSource(), c -> 1));
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(o.completedInTransaction()).isTrue();
            Lease lease = tenure.databaseLeases()
                    .tryAcquire(
                            "tenure-it-lease",
                            LeaseOptions.ofTtl(Duration.ofSeconds(5)).withFencingToken(true))
                    .orElseThrow();
            try (Connection c = servers.db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                tenure.fence(c, lease);
                c.rollback();
            }
            assertThat(tenure.holder("tenure-it-lease"))
                    .get()
                    .extracting(Holder::owner)
                    .isEqualTo(lease.owner());
            lease.release();
            try (Connection c = servers.db.dataSource().getConnection()) {
                c.setAutoCommit(false);
                assertThatThrownBy(() -> tenure.fence(c, lease)).isInstanceOf(StaleOwnerException.class);
                c.rollback();
            }
        }
    }

    /** Issue 24, item 3: the node name of the builder is on every run and election term; by default host/pid. */
    @Test
    void nodeName_isRecordedOnEveryRunAndElectionTerm_inBothModes_andDefaultsToHostAndPid() throws Exception {
        String named = "web-3/invoicing/22418";
        try (Tenure tenure = base().nodeName(named).build();
                Tenure valkey = base().nodeName("web-4/invoicing/7")
                        .valkey(ValkeyConfig.standalone(servers.valkey.address())
                                .build())
                        .build();
                Tenure unnamed = base().build()) {
            assertThat(tenure.nodeName()).isEqualTo(named);
            assertThat(unnamed.nodeName())
                    .isEqualTo(dev.tenure.integration.NodeName.defaultName())
                    .endsWith("/" + ProcessHandle.current().pid());
            for (Tenure t : List.of(tenure, valkey, unnamed)) {
                assertThat(t.coordinator()
                                .run("nodes-it", "f-" + t.nodeName(), RunPolicy.skipFire(), ctx -> 1)
                                .status())
                        .isEqualTo(RunOutcome.Status.EXECUTED);
                assertThat(node("job_run", "job_key = 'nodes-it' AND fire_key = 'f-" + t.nodeName() + "'"))
                        .isEqualTo(t.nodeName());
            }
            LeaderElection election = tenure.leaderElection("nodes-it-role", new LeaderElection.Listener() {
                @Override
                public void elected(long term) {}

                @Override
                public void revoked(String reason) {}
            });
            election.start();
            Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(election::isLeader);
            assertThat(node("job_execution", "job_key = 'nodes-it-role'"))
                    .as("the term's node")
                    .isEqualTo(named);
            election.stop();
        }
    }

    private static String node(String table, String where) throws java.sql.SQLException {
        try (Connection c = servers.db.dataSource().getConnection();
                var st = c.createStatement();
                var rs = st.executeQuery("SELECT node FROM tenure." + table + " WHERE " + where)) {
            assertThat(rs.next()).as("a row of %s where %s", table, where).isTrue();
            return rs.getString(1);
        }
    }

    @Test
    void withValkey_theFallbackMode_plainLeasesOnValkey_andTheMetersBound() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Tenure tenure = base().valkey(
                        ValkeyConfig.standalone(servers.valkey.address()).build())
                .meterRegistry(registry)
                .build()) {
            assertThat(tenure.coordinator().mode()).isEqualTo(JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK);
            Lease lease = tenure.leases().tryAcquire("tenure-it-valkey").orElseThrow();
            assertThat(servers.valkey.command("GET", "{tenure:tenure-it-valkey}:lease"))
                    .isEqualTo(lease.owner());
            lease.release();
            tenure.coordinator().run("tenure-it-unfenced", "f1", RunPolicy.skipFire(), ctx -> 1);
            assertThat(registry.counter("tenure.run.unfenced", "job", "tenure-it-unfenced")
                            .count())
                    .isEqualTo(1.0);
            assertThat(registry.find("tenure.lease.acquire").timers()).isNotEmpty();
        }
    }

    @Test
    void close_stopsItsElections_andRefusesNewRuns() {
        List<String> events = new CopyOnWriteArrayList<>();
        Tenure tenure = base().build();
        LeaderElection e = tenure.leaderElection("tenure-it-role", new LeaderElection.Listener() {
            @Override
            public void elected(long epoch) {
                events.add("elected");
            }

            @Override
            public void revoked(String reason) {
                events.add("revoked");
            }
        });
        e.start();
        Awaitility.await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(e::isLeader);
        tenure.close();
        assertThat(e.isLeader()).isFalse();
        assertThat(events).containsExactly("elected", "revoked");
        assertThat(tenure.holder("tenure-it-role")).as("the role was released").isEmpty();
        assertThatThrownBy(() -> tenure.coordinator().run("tenure-it", "f2", RunPolicy.skipFire(), ctx -> 1))
                .isInstanceOf(IllegalStateException.class);
        tenure.close(); // idempotent
    }

    @Test
    void badConfiguration_failsAtBuildNamingTheProblem() {
        assertThatThrownBy(() -> Tenure.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs a dataSource");
        assertThatThrownBy(() -> Tenure.builder().meterRegistry("not a registry"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MeterRegistry");
        assertThatThrownBy(() -> base().schema("Bad-Schema").build()).hasMessageContaining("schema");
    }

    @Test
    void inMemory_needsNoServer() {
        try (Tenure tenure = Tenure.inMemory()) {
            RunOutcome<Integer> o = tenure.coordinator().run("mem", "f1", RunPolicy.skipFire(), ctx -> {
                ctx.complete(null);
                return 1;
            });
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(tenure.coordinator()
                            .run("mem", "f1", RunPolicy.skipFire(), ctx -> 2)
                            .status())
                    .isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
        }
    }
}
