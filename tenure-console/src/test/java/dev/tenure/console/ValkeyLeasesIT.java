package dev.tenure.console;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaseOptions;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Valkey given, the page reads Tenure's lease keys on a real {@code valkey-server}: a job held through Valkey and
 * the database shows as "Valkey + database"; an unreachable Valkey is named, not hidden.
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
    void aJobHeldThroughValkey_showsBothLeases_andAnUnreachableValkeyIsNamed() throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        try (Tenure tenure = Tenure.builder().dataSource(pool).leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .valkey(ValkeyConfig.standalone(valkey.address()).build()).build()) {
            CompletableFuture<?> run = CompletableFuture.runAsync(() -> tenure.coordinator().run("export", "f-1",
                    RunPolicy.failFast(), ctx -> {
                        holding.countDown();
                        return done.await(30, TimeUnit.SECONDS);
                    }));
            assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
            try (ConsoleServer server = TenureConsole.builder(pool).valkey(valkey.address()).build()
                    .serve(new InetSocketAddress("127.0.0.1", 0));
                 ConsoleServer nowhere = TenureConsole.builder(pool).valkey("127.0.0.1:1").build()
                         .serve(new InetSocketAddress("127.0.0.1", 0))) {
                assertThat(Http.get(server.url() + "/").body()).contains("<td>Valkey + database</td>");
                assertThat(Http.get(server.url() + "/job?key=export").body()).contains("<dd>Valkey + database</dd>");
                assertThat(Http.get(nowhere.url() + "/").body()).contains("<td>Valkey unreadable</td>");
            } finally {
                done.countDown();
                run.get(30, TimeUnit.SECONDS);
            }
        }
    }
}
