package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Node names in the ledger (schema version 5): every claim and run start of a named ledger records its node next to the
 * owner id; a release clears it with the owner; a ledger without a name records none, as before; the admin reads it.
 */
class NodeNamesIT {

    private static final String WEB_1 = "web-1/invoicing/22418";
    private static final String WEB_2 = "web-2/invoicing/1";
    private static Fixture fx;
    private static JdbcBackend.Siblings web1Stores;
    private static JdbcBackend.Siblings web2Stores;
    private static JdbcLeaseStore web1;
    private static JdbcRunLedger web1Runs;
    private static JdbcLeaseStore web2;
    private static JdbcRunLedger web2Runs;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(NodeNamesIT.class);
        web1Stores = JdbcBackend.siblings(fx.pool, TenureSchema.DEFAULT_SCHEMA, WEB_1, Fixture.NO_LISTEN);
        web1 = web1Stores.leases();
        web1Runs = web1Stores.runs();
        web2Stores = JdbcBackend.siblings(fx.pool, TenureSchema.DEFAULT_SCHEMA, WEB_2, Fixture.NO_LISTEN);
        web2 = web2Stores.leases();
        web2Runs = web2Stores.runs();
    }

    @AfterAll
    static void stop() {
        web1Stores.close();
        web2Stores.close();
        fx.close();
    }

    @Test
    void claimAndStartRun_recordTheNode_releaseClearsIt_andATakeOverRecordsTheNewNode() {
        String key = "nodes-" + UUID.randomUUID();
        long e1 = ((ClaimResult.Claimed) web1.claim(key, "A", Duration.ofSeconds(30))).epoch();
        assertThat(holderNode(key)).isEqualTo(WEB_1);
        RunStart.Started run = (RunStart.Started) web1Runs.start(key, "f1", e1, "A");
        assertThat(runNode(key, "f1")).isEqualTo(WEB_1);
        web1Runs.finish(key, e1, "A", run.runId(), RunStatus.FAILED, "boom");
        web1.releaseEpoch(key, e1, "A");
        assertThat(holderNode(key)).as("cleared with the owner").isNull();

        long e2 = ((ClaimResult.Claimed) web2.claim(key, "B", Duration.ofSeconds(30))).epoch();
        assertThat(holderNode(key)).isEqualTo(WEB_2);
        web2Runs.start(key, "f1", e2, "B");
        assertThat(fx.query("SELECT node || ' ' || owner || ' ' || attempt FROM tenure.job_runs WHERE job_key = '" + key
                        + "'"))
                .as("the FAILED fire taken over by web-2")
                .containsExactly(WEB_2 + " B 2");
    }

    @Test
    void claimAndStart_inOneStatement_recordsTheNodeOnTheJobAndTheRun() {
        String key = "nodes-" + UUID.randomUUID();
        assertThat(web2Runs.claimAndStart(key, "f1", "B", Duration.ofSeconds(30)))
                .isInstanceOf(dev.tenure.spi.RunLedger.FireClaim.Started.class);
        assertThat(holderNode(key)).isEqualTo(WEB_2);
        assertThat(runNode(key, "f1")).isEqualTo(WEB_2);
    }

    @Test
    void aLedgerWithoutAName_recordsNone_andTheAdminShowsTheNodeAndTheOldNode() {
        String key = "nodes-" + UUID.randomUUID();
        long e = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Duration.ofSeconds(30))).epoch();
        fx.runs.start(key, "f1", e, "A");
        assertThat(holderNode(key)).isNull();
        assertThat(runNode(key, "f1")).isNull();
        TenureAdmin admin = TenureAdmin.create(fx.pool);
        assertThat(admin.job(key)).get().satisfies(j -> assertThat(j.node()).isNull());
        fx.leases.releaseEpoch(key, e, "A");

        web1.claim(key, "C", Duration.ofSeconds(30));
        assertThat(admin.job(key)).get().satisfies(j -> {
            assertThat(j.owner()).isEqualTo("C");
            assertThat(j.node()).isEqualTo(WEB_1);
        });
        TenureAdmin.ForceRelease r = admin.forceRelease(key, "a test", "ops:test");
        assertThat(r.oldOwner()).isEqualTo("C");
        assertThat(r.oldNode()).isEqualTo(WEB_1);
        assertThat(fx.query("SELECT old_owner || ' ' || old_node FROM tenure.audit_log WHERE job_key = '" + key + "'"))
                .as("the audit row names the node")
                .containsExactly("C " + WEB_1);
        assertThat(holderNode(key)).isNull();
    }

    @Test
    void aRunAbandonedByASuccessor_saysWhichNodeHeldIt_byItsNodeNameAndAShortId() {
        String key = "nodes-" + UUID.randomUUID();
        String owner = "b6e8c8afe99a7511-4441-1.10";
        web1Runs.claimAndStart(key, "f1", owner, Duration.ofMillis(200));
        org.awaitility.Awaitility.await()
                .atMost(dev.tenure.testkit.Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> fx.query("SELECT count(*) FROM tenure.job_execution WHERE job_key = '" + key
                                + "' AND lease_expires_at <= clock_timestamp()")
                        .equals(List.of("1")));
        web2Runs.claimAndStart(key, "f2", "B", Duration.ofSeconds(30));
        assertThat(fx.query("SELECT status || ': ' || error FROM tenure.job_runs WHERE job_key = '" + key
                        + "' AND fire_key = 'f1'"))
                .as("the reason people read names the node, not only the owner id")
                .singleElement()
                .asString()
                .startsWith("ABANDONED: the lease of " + WEB_1 + "#b6e8 (epoch ")
                .doesNotContain(owner);
    }

    @Test
    void aBadNodeName_isRefused_namingTheProblem() {
        assertThatThrownBy(() -> JdbcBackend.siblings(fx.pool, TenureSchema.DEFAULT_SCHEMA, " ", Fixture.NO_LISTEN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> new JdbcBackend()
                        .open(fx.pool, TenureSchema.DEFAULT_SCHEMA, false, "x".repeat(201), Fixture.NO_LISTEN))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 200 characters");
    }

    private static String holderNode(String key) {
        List<String> rows = fx.query("SELECT node FROM tenure.job_execution WHERE job_key = '" + key + "'");
        assertThat(rows).hasSize(1);
        return rows.get(0);
    }

    private static String runNode(String key, String fire) {
        List<String> rows = fx.query(
                "SELECT node FROM tenure.job_runs WHERE job_key = '" + key + "' AND fire_key = '" + fire + "'");
        assertThat(rows).hasSize(1);
        return rows.get(0);
    }
}
