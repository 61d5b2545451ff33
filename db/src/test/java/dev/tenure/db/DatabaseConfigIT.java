package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.DatabaseConfig;
import dev.tenure.Tenure;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link Tenure.Builder#database}: the database store of a Tenure takes its threads, queue and call timeout from the
 * {@link DatabaseConfig} (issue 25: every knob through Tenure). A pool of one connection, held by the test, blocks the
 * store's calls where they wait for a connection.
 */
class DatabaseConfigIT {

    private static Fixture fx;
    private static HikariDataSource onePool;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(DatabaseConfigIT.class);
        HikariConfig cfg = TenureDataSources.hikariConfig(
                Fixture.poolConfig(fx.db).applicationName("one-connection").build());
        cfg.setMaximumPoolSize(1);
        cfg.setMinimumIdle(1);
        cfg.setConnectionTimeout(Timing.scaledMillis(30_000)); // far beyond the store's call timeout below
        onePool = new HikariDataSource(cfg);
    }

    @AfterAll
    static void stop() {
        onePool.close();
        fx.close();
    }

    @Test
    void oneThreadAndAQueueOfOne_theThirdConcurrentCallIsRefusedAtOnce_andTheBlockedOneEndsAtTheCallTimeout()
            throws Exception {
        Duration callTimeout = Timing.scaled(Duration.ofSeconds(2));
        DatabaseConfig config = DatabaseConfig.builder()
                .threads(1)
                .maxQueued(1)
                .callTimeout(callTimeout)
                .listen(false)
                .build();
        ExecutorService callers = Executors.newFixedThreadPool(3);
        try (Tenure tenure = Tenure.builder()
                .dataSource(onePool)
                .migrateSchema(false)
                .database(config)
                .build()) {
            List<Future<?>> calls = new ArrayList<>();
            try (Connection held = onePool.getConnection()) { // the store's one thread now waits for a connection
                for (int i = 0; i < 3; i++) {
                    String key = "cfg-" + i + "-" + UUID.randomUUID();
                    calls.add(callers.submit(() -> tenure.databaseLeases().tryAcquire(key)));
                    Thread.sleep(Timing.scaledMillis(100)); // in order: the first runs, the second queues
                }
                List<String> failures = new ArrayList<>();
                for (Future<?> f : calls) {
                    try {
                        f.get(callTimeout.toMillis() + Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
                        failures.add("none");
                    } catch (java.util.concurrent.ExecutionException e) {
                        failures.add(String.valueOf(e.getCause()));
                    }
                }
                assertThat(failures.get(2))
                        .as("the third call, beyond one thread and a queue of one")
                        .contains("too many calls waiting for a database thread");
                assertThat(failures.get(0))
                        .as("the call blocked on the held connection")
                        .contains("got no answer within " + callTimeout);
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void badKnobs_refusedNamingTheKnob() {
        assertThatThrownBy(() -> DatabaseConfig.builder().threads(0)).hasMessageContaining("threads");
        assertThatThrownBy(() -> DatabaseConfig.builder().maxQueued(0)).hasMessageContaining("maxQueued");
        assertThatThrownBy(() -> DatabaseConfig.builder().callTimeout(Duration.ofMillis(5)))
                .hasMessageContaining("callTimeout");
        assertThatThrownBy(() -> DatabaseConfig.builder().claimLockTimeout(Duration.ZERO))
                .hasMessageContaining("claimLockTimeout");
        assertThatThrownBy(() -> DatabaseConfig.builder().queryTimeout(Duration.ofSeconds(-1)))
                .hasMessageContaining("queryTimeout");
        assertThat(DatabaseConfig.defaults().claimLockTimeout()).isEqualTo(DatabaseConfig.DEFAULT_CLAIM_LOCK_TIMEOUT);
    }
}
