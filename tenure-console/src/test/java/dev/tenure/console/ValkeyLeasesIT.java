package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With Valkey given, the page reads Tenure's lease keys on a real {@code valkey-server}: a job held through Valkey and
 * the database shows as "Valkey + database"; an unreachable Valkey is named, not hidden. A force-release from the page
 * or the CLI deletes the job's Valkey lease too (issue 22, item 3).
 */
class ValkeyLeasesIT {

    private static TestDatabase db;
    private static HikariDataSource pool;
    private static ValkeyServer valkey;

    @BeforeAll
    static void start() {
        db = TestDatabase.forClass(ValkeyLeasesIT.class);
        pool = db.pool();
        valkey = ValkeyServers.standalone();
    }

    @AfterAll
    static void stop() {
        valkey.close();
        db.close();
    }

    @Test
    void forceRelease_withValkeyGiven_deletesTheHoldersValkeyLease_fromThePageAndTheCli() throws Exception {
        CountDownLatch holding = new CountDownLatch(2);
        CountDownLatch done = new CountDownLatch(1);
        ExecutorService holders = Executors.newFixedThreadPool(2);
        CliFixture cli = new CliFixture(db.database());
        try (Tenure tenure = Tenure.builder()
                .dataSource(pool)
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .valkey(ValkeyConfig.standalone(valkey.address()).build())
                .build()) {
            List<Future<RunOutcome<Boolean>>> runs = new ArrayList<>();
            for (String job : List.of("page-release", "cli-release")) {
                runs.add(holders.submit(() -> tenure.coordinator().run(job, "f-1", RunPolicy.skipFire(), ctx -> {
                    holding.countDown();
                    return done.await(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
                })));
            }
            assertThat(holding.await(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS))
                    .isTrue();
            TenureConsole console =
                    TenureConsole.builder(pool).valkey(valkey.address()).build();
            ValkeyLeases layout = new ValkeyLeases(valkey.address(), "tenure", null, null);
            assertThat(valkey.command("EXISTS", layout.leaseKey("page-release")))
                    .as("the console's key layout is the store's: the lease Tenure holds is where the console looks")
                    .isEqualTo(1L);
            assertThat(valkey.command("EXISTS", layout.leaseKey("cli-release"))).isEqualTo(1L);

            TenureAdmin.ForceRelease page = console.admin().forceRelease("page-release", "stuck", "console:test");
            assertThat(page.valkeyLease()).isEqualTo(TenureAdmin.ValkeyLease.DELETED);
            assertThat(valkey.command("EXISTS", layout.leaseKey("page-release")))
                    .isEqualTo(0L);

            CliFixture.Result r = cli.run(
                    "release", "cli-release", "--reason", "stuck", "--actions", "--yes", "--valkey", valkey.address());
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).contains("; Valkey lease deleted");
            assertThat(valkey.command("EXISTS", layout.leaseKey("cli-release"))).isEqualTo(0L);
            done.countDown();
            for (Future<RunOutcome<Boolean>> run : runs) {
                assertThat(run.get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS)
                                .status())
                        .isEqualTo(RunOutcome.Status.LEASE_LOST);
            }
        } finally {
            done.countDown();
            holders.shutdown();
            cli.close();
        }
    }

    /**
     * A completed fire leaves {@code d:<ledgerId>/<fireKey>} in the lease key for one TTL: no holder, so not a Valkey
     * lease.
     */
    @Test
    void completedFireMarker_isNoHolder() {
        try (Tenure tenure = Tenure.builder()
                .dataSource(pool)
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .valkey(ValkeyConfig.standalone(valkey.address()).build())
                .build()) {
            assertThat(tenure.coordinator()
                            .run("marked", "f-1", RunPolicy.skipFire(), ctx -> true)
                            .status())
                    .isEqualTo(RunOutcome.Status.EXECUTED);
            ValkeyLeases leases = new ValkeyLeases(valkey.address(), "tenure", null, null);
            assertThat(String.valueOf(valkey.command("GET", leases.leaseKey("marked"))))
                    .startsWith("d:")
                    .endsWith("/f-1");
            assertThat(leases.leases(List.of("marked"))).isEmpty();
        }
    }

    @Test
    void aJobHeldThroughValkey_showsBothLeases_andAnUnreachableValkeyIsNamed() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        try (Tenure tenure = Tenure.builder()
                .dataSource(pool)
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .valkey(ValkeyConfig.standalone(valkey.address()).build())
                .build()) {
            CompletableFuture<?> run = CompletableFuture.runAsync(() -> tenure.coordinator()
                    .run("export", "f-1", RunPolicy.skipFire(), ctx -> {
                        holding.countDown();
                        return done.await(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
                    }));
            assertThat(holding.await(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS))
                    .isTrue();
            try (ConsoleServer server = TenureConsole.builder(pool)
                            .valkey(valkey.address())
                            .build()
                            .serve(new InetSocketAddress("127.0.0.1", 0));
                    ConsoleServer nowhere = TenureConsole.builder(pool)
                            .valkey("127.0.0.1:1")
                            .build()
                            .serve(new InetSocketAddress("127.0.0.1", 0))) {
                assertThat(Http.get(server.url() + "/").body()).contains("<td>Valkey + database</td>");
                assertThat(Http.get(server.url() + "/job?key=export").body()).contains("<dd>Valkey + database</dd>");
                assertThat(Http.get(nowhere.url() + "/").body()).contains("<td>Valkey unreadable</td>");
            } finally {
                done.countDown();
                run.get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
            }
        }
    }
}
