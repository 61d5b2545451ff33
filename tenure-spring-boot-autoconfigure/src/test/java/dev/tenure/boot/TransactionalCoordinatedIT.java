package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.RunOutcome;
import dev.tenure.boot.app.Events;
import dev.tenure.boot.app.StaleSettlement;
import dev.tenure.boot.app.TestApps;
import dev.tenure.boot.app.TransactionalApp;
import dev.tenure.boot.autoconfigure.TenureDatabase;
import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.Timing;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * A real Boot application (Boot's Flyway, Hikari, scheduler and transaction manager; Tenure's pins) on real Postgres
 * and valkey-server: with {@code @Transactional} on a {@code @Coordinated} method, the lease is taken before the
 * transaction begins and released after it commits (recorded order), a stale owner's writes roll back, and Tenure's
 * schema lives next to the application's own Flyway migrations.
 */
class TransactionalCoordinatedIT {

    static BootServers servers;
    static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() {
        servers = BootServers.start(TransactionalCoordinatedIT.class);
        app = TestApps.start(TransactionalApp.class, servers);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        servers.close();
    }

    @Test
    void theLease_isTakenBeforeTheTransactionBegins_andReleasedAfterItCommits() {
        Events events = app.getBean(Events.class);
        Map.Entry<String, List<String>> fire = await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                .until(
                        () -> events.byFire().entrySet().stream()
                                .filter(e -> e.getValue().size() == 4)
                                .findFirst(),
                        java.util.Optional::isPresent)
                .orElseThrow();
        System.out.println("recorded order of fire " + fire.getKey() + ": " + fire.getValue());
        assertThat(fire.getValue())
                .containsExactly(
                        "claimed: transaction active false, lease held true",
                        "body: transaction active true",
                        "after commit: lease held true",
                        "finished EXECUTED: lease held false");
        RunOutcome<?> o = events.outcome("ordered-settlement", fire.getKey());
        assertThat(o.completedInTransaction())
                .as("completed in the method's transaction")
                .isTrue();
    }

    @Test
    void theLeaseRunAndFireMeters_areInTheApplicationsRegistry_withoutUserCode() {
        MeterRegistry registry = app.getBean(MeterRegistry.class);
        await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                .until(() -> registry.find("tenure.job.fires")
                                .tags("integration", "scheduled", "job", "ordered-settlement", "outcome", "executed")
                                .counter()
                        != null);
        assertThat(registry.find("tenure.lease.acquire")
                        .tag("result", "acquired")
                        .timer())
                .isNotNull();
        assertThat(registry.find("tenure.lease.hold").timer()).isNotNull();
    }

    @Test
    void aStaleOwnersWrites_rollBack_withItsTransaction() throws Exception {
        StaleSettlement stale = app.getBean(StaleSettlement.class);
        Thread holder = stale.gate().callUntilReached(stale::settle, Duration.ofSeconds(20));
        TenureAdmin.ForceRelease taken = app.getBean(TenureAdmin.class)
                .forceRelease("stale-settlement", "test: another owner takes over", "test");
        stale.gate().open();
        holder.join(Duration.ofSeconds(20).toMillis());
        assertThat(holder.isAlive()).isFalse();

        assertThat(taken.newEpoch()).isGreaterThan(taken.oldEpoch());
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = 'stale'"))
                .as("the stale owner's business row")
                .isZero();
        assertThat(servers.queryLong("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'stale-settlement' "
                        + "AND status = 'COMPLETED'"))
                .isZero();
        assertThat(app.getBean(Events.class).byFire().values())
                .anySatisfy(events -> assertThat(events).contains("finished LEASE_LOST: lease held false"));
    }

    @Test
    void onTenuresPins_tenuresSchemaLivesNextToTheApplicationsOwnFlywayMigrations_onItsOnlyPool() throws Exception {
        assertThat(jarOf(Flyway.class)).isEqualTo("flyway-core-" + System.getProperty("tenure.pins.flyway") + ".jar");
        assertThat(jarOf(HikariDataSource.class))
                .isEqualTo("HikariCP-" + System.getProperty("tenure.pins.hikaricp") + ".jar");
        assertThat(app.getBeansOfType(DataSource.class)).hasSize(1);
        assertThat(app.getBean(TenureDatabase.class).dataSource())
                .isSameAs(app.getBean(DataSource.class))
                .isInstanceOf(HikariDataSource.class);
        assertThat(servers.queryLong("SELECT count(*) FROM public.flyway_schema_history WHERE success "
                        + "AND script = 'V1__settlement_entry.sql'"))
                .isEqualTo(1);
        assertThat(servers.queryLong("SELECT count(*) FROM tenure.tenure_schema_history WHERE success "
                        + "AND version IN ('1', '2')"))
                .isEqualTo(2);
    }

    /** An application whose transaction advisor is ordered outside Tenure's. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableTransactionManagement(order = 0)
    @Import(TransactionalApp.class)
    static class TransactionsOutside {}

    @Test
    void aTransactionAdvisorOutsideTenures_stopsTheStartUp_namingTheOrderProperty() {
        Throwable failure = org.assertj.core.api.Assertions.catchThrowable(
                () -> TestApps.start(TransactionsOutside.class, servers).close());
        assertThat(failure)
                .rootCause()
                .isInstanceOf(TenureConfigurationException.class)
                .hasMessageContaining("OrderedSettlement.settle")
                .hasMessageContaining("inside the transaction advisor");
        assertThat(((TenureConfigurationException) org.assertj.core.api.Assertions.assertThat(failure)
                                .rootCause()
                                .actual())
                        .action())
                .contains("tenure.scheduling.advisor-order");
    }

    private static String jarOf(Class<?> type) {
        String path = type.getProtectionDomain().getCodeSource().getLocation().getPath();
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
