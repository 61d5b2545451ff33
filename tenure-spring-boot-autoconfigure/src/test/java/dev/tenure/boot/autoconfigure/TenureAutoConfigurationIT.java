package dev.tenure.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.JobCoordinator;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.boot.BootServers;
import dev.tenure.boot.CoordinatedAdvisor;
import dev.tenure.boot.actuate.TenureEndpoint;
import dev.tenure.boot.actuate.TenureHealthIndicator;
import dev.tenure.db.TenureAdmin;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Each bean of the auto-configuration appears under its conditions and backs off under the others, in real Boot
 * contexts on a real Postgres database and valkey-server. (Quartz and Batch: {@link TenureQuartzAutoConfigurationIT},
 * {@link TenureBatchAutoConfigurationIT}.)
 */
class TenureAutoConfigurationIT {

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(TenureAutoConfigurationIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        AopAutoConfiguration.class,
                        TenureAutoConfiguration.class,
                        TenureSchedulingAutoConfiguration.class,
                        EndpointAutoConfiguration.class,
                        TenureEndpointAutoConfiguration.class,
                        TenureHealthContributorAutoConfiguration.class))
                .withPropertyValues(servers.dataSource().toArray(String[]::new))
                .withPropertyValues("tenure.lease.ttl=2s");
    }

    @Test
    void onTheApplicationsDataSource_aTenureInTheDatabaseMode_withItsSchemaMigrated() {
        runner().run(context -> {
            assertThat(context)
                    .hasSingleBean(Tenure.class)
                    .hasSingleBean(TenureAdmin.class)
                    .hasSingleBean(CoordinatedAdvisor.class)
                    .hasSingleBean(TenureHealthIndicator.class)
                    .hasSingleBean(DataSource.class);
            TenureDatabase db = context.getBean(TenureDatabase.class);
            assertThat(db.dataSource()).isSameAs(context.getBean(DataSource.class));
            assertThat(db.ownPool()).isFalse();
            assertThat(context.getBean(Tenure.class).coordinator().mode()).isEqualTo(JobCoordinator.Mode.DATABASE);
            assertThat(servers.queryLong("SELECT count(*) FROM tenure.tenure_schema_history WHERE success"))
                    .isGreaterThanOrEqualTo(2);
        });
    }

    @Test
    void withValkeyAddresses_runsGoThroughValkey_withTheDatabaseFallback_orFailClosedInTheValkeyMode() {
        runner().withPropertyValues(
                        "tenure.valkey.addresses=" + servers.valkey().address())
                .run(context -> {
                    Tenure tenure = context.getBean(Tenure.class);
                    assertThat(tenure.usesValkey()).isTrue();
                    assertThat(tenure.coordinator().mode())
                            .isEqualTo(JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK);
                    RunOutcome<String> o =
                            tenure.coordinator().run("valkey-mode", "f1", RunPolicy.skipFire(), ctx -> "ok");
                    assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
                    assertThat(o.viaFallback()).isFalse();
                });
        runner().withPropertyValues(
                        "tenure.valkey.addresses=" + servers.valkey().address(), "tenure.mode=valkey")
                .run(context -> assertThat(
                                context.getBean(Tenure.class).coordinator().mode())
                        .isEqualTo(JobCoordinator.Mode.VALKEY));
    }

    /** Issue 24, item 3: tenure.node-name, else host/spring.application.name/pid, recorded on the runs. */
    @Test
    void theNodeName_isTheProperty_elseHostApplicationAndPid_andIsRecordedOnTheRuns() {
        long pid = ProcessHandle.current().pid();
        runner().withPropertyValues("spring.application.name=invoicing").run(context -> {
            Tenure tenure = context.getBean(Tenure.class);
            assertThat(tenure.nodeName())
                    .isEqualTo(dev.tenure.integration.NodeName.defaultName("invoicing"))
                    .endsWith("/invoicing/" + pid);
        });
        runner().run(context -> assertThat(context.getBean(Tenure.class).nodeName())
                .isEqualTo(dev.tenure.integration.NodeName.defaultName())
                .doesNotContain("invoicing"));
        runner().withPropertyValues("spring.application.name=invoicing", "tenure.node-name=web-3/invoicing/" + pid)
                .run(context -> {
                    Tenure tenure = context.getBean(Tenure.class);
                    assertThat(tenure.nodeName()).isEqualTo("web-3/invoicing/" + pid);
                    tenure.coordinator().run("boot-node-name", "f1", dev.tenure.RunPolicy.skipFire(), ctx -> 1);
                    assertThat(servers.queryLong(
                                    "SELECT count(*) FROM tenure.job_runs WHERE job_key = 'boot-node-name' "
                                            + "AND node = 'web-3/invoicing/" + pid + "'"))
                            .isEqualTo(1);
                });
    }

    @Test
    void theApplicationsOwnBeans_replaceTenures() {
        runner().withBean("myTenure", Tenure.class, Tenure::inMemory)
                .withBean(
                        "myAdmin",
                        TenureAdmin.class,
                        () -> TenureAdmin.create(servers.db().dataSource()))
                .run(context -> {
                    assertThat(context).getBeans(Tenure.class).containsOnlyKeys("myTenure");
                    assertThat(context).getBeans(TenureAdmin.class).containsOnlyKeys("myAdmin");
                });
    }

    @Test
    void tenureDatasourceUrl_givesTenureAPoolOfItsOwn_besideTheApplicationsOnlyDataSource() {
        runner().withPropertyValues(
                        "tenure.datasource.url=" + servers.db().jdbcUrl(),
                        "tenure.datasource.username=" + servers.db().username())
                .run(context -> {
                    TenureDatabase db = context.getBean(TenureDatabase.class);
                    assertThat(db.ownPool()).isTrue();
                    assertThat(db.dataSource())
                            .isInstanceOf(HikariDataSource.class)
                            .isNotSameAs(context.getBean(DataSource.class));
                    assertThat(context).hasSingleBean(DataSource.class);
                });
    }

    @Test
    void withoutADataSource_theStartUpFails_sayingWhatToAdd() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TenureAutoConfiguration.class))
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("tenure.datasource.url")
                        .hasMessageContaining("no single DataSource"));
    }

    @Test
    void tenureDisabled_leavesOutEveryTenureBean() {
        runner().withPropertyValues("tenure.enabled=false", "management.endpoints.web.exposure.include=tenure")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(Tenure.class)
                        .doesNotHaveBean(TenureDatabase.class)
                        .doesNotHaveBean(TenureAdmin.class)
                        .doesNotHaveBean(CoordinatedAdvisor.class)
                        .doesNotHaveBean(TenureEndpoint.class)
                        .doesNotHaveBean(TenureHealthIndicator.class));
    }

    @Test
    void theLeaseMeters_goToTheApplicationsRegistry_withoutUserCode() {
        runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            context.getBean(Tenure.class)
                    .leases()
                    .tryAcquire("metered")
                    .orElseThrow()
                    .release();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("tenure.lease.acquire")
                            .tag("result", "acquired")
                            .timer())
                    .isNotNull();
            assertThat(registry.find("tenure.lease.hold").timer()).isNotNull();
        });
    }

    @Nested
    class Actuator {

        @Test
        void theEndpoint_isThere_onlyWhenExposed_andWithBootsActuator() {
            runner().run(context -> assertThat(context).doesNotHaveBean(TenureEndpoint.class));
            runner().withPropertyValues("management.endpoints.web.exposure.include=tenure")
                    .run(context -> assertThat(context).hasSingleBean(TenureEndpoint.class));
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            DataSourceAutoConfiguration.class,
                            TenureAutoConfiguration.class,
                            TenureEndpointAutoConfiguration.class))
                    .withPropertyValues(servers.dataSource().toArray(String[]::new))
                    .withPropertyValues("management.endpoints.web.exposure.include=tenure")
                    .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
                    .run(context ->
                            assertThat(context).hasSingleBean(Tenure.class).doesNotHaveBean(TenureEndpoint.class));
        }

        @Test
        void theHealthContributor_backsOff_whenDisabled_orWithoutBootsHealthSupport() {
            runner().withPropertyValues("management.health.tenure.enabled=false")
                    .run(context -> assertThat(context).doesNotHaveBean(TenureHealthIndicator.class));
            runner().withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
                    .run(context -> assertThat(context)
                            .hasSingleBean(Tenure.class)
                            .doesNotHaveBean(TenureHealthIndicator.class));
        }
    }
}
