package dev.tenure.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.DatabaseConfig;
import dev.tenure.JobCoordinator;
import dev.tenure.boot.TenureConfigurationException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Bad {@code tenure.*} values stop the start-up, and the failure names the property (no database is reached). */
class TenurePropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(TenureAutoConfiguration.class))
            .withBean(DataSource.class, TenurePropertiesTest::nowhere); // binding fails first; nothing listens there

    private static DataSource nowhere() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setServerNames(new String[] {"127.0.0.1"});
        ds.setPortNumbers(new int[] {1});
        ds.setConnectTimeout(1);
        return ds;
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "tenure.lease.ttl                     | 5ms                  | tenure.lease.ttl",
                "tenure.lease.renew-every             | 40s                  | tenure.lease.renew-every",
                "tenure.lease.safety-margin           | -1s                  | tenure.lease.safety-margin",
                "tenure.fallback.failures             | 0                    | tenure.fallback.failures",
                "tenure.fallback.open-for             | 0s                   | tenure.fallback.open-for",
                "tenure.valkey.addresses              | valkey-without-port  | tenure.valkey.addresses[0]",
                "tenure.valkey.namespace              | has space            | tenure.valkey.namespace",
                "tenure.valkey.request-timeout        | 0ms                  | tenure.valkey.request-timeout",
                "tenure.valkey.clients                | 17                   | tenure.valkey.clients",
                "tenure.mode                          | valkey               | tenure.mode",
                "tenure.schema                        | Bad-Schema           | tenure.schema",
                "tenure.datasource.url                | jdbc:mysql://db/app  | tenure.datasource.url",
                "tenure.quartz.plug-in                | carrier-pigeon       | tenure.quartz.plug-in",
                "tenure.scheduling.advisor-order      | outside              | tenure.scheduling.advisor-order",
                "tenure.node-name                     | '   '                | tenure.node-name",
                "tenure.database.threads              | 65                   | tenure.database.threads",
                "tenure.database.claim-lock-timeout   | 0ms                  | tenure.database.claim-lock-timeout",
                "tenure.database.call-timeout         | 5ms                  | tenure.database.call-timeout",
                "tenure.database.max-claims-per-statement | 0                | tenure.database.max-claims-per-statement",
            })
    void aBadValue_failsTheStartUp_namingTheProperty(String property, String value, String named) {
        runner.withPropertyValues(property + "=" + value).run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).contains(named);
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "tenure.datasource.url=jdbc:postgresql://db/app,tenure.datasource.max-pool-size=1 | tenure.datasource.max-pool-size",
                "tenure.valkey.addresses=127.0.0.1:6390,tenure.valkey.username=ops                | tenure.valkey.password",
                "tenure.valkey.addresses=127.0.0.1:6390,tenure.mode=database                      | tenure.mode",
            })
    void aBadCombination_namesThePropertyToChange(String properties, String named) {
        runner.withPropertyValues(properties.split(",")).run(context -> {
            assertThat(context).hasFailed();
            assertThat(messages(context.getStartupFailure())).contains(named);
        });
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tenure.lease.ttl=5ms", "tenure.valkey.addresses=nohost"})
    void theFailureAnalysis_namesThePropertyAndWhatToChange(String property) {
        runner.withPropertyValues(property).run(context -> {
            Throwable failure = context.getStartupFailure();
            TenureConfigurationException cause = find(failure);
            FailureAnalysis analysis = new TenureConfigurationFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription()).contains(cause.where()).contains("invalid value");
            assertThat(analysis.getAction()).startsWith("Change " + cause.where());
        });
    }

    @Test
    void noValkeyAddress_orAnEmptyOne_isTheDatabaseMode_andGoodValuesBindAsGiven() {
        for (String addresses : new String[] {null, ""}) {
            Map<String, String> values = new HashMap<>(Map.of(
                    "tenure.lease.ttl",
                    "2s",
                    "tenure.lease.renew-every",
                    "500ms",
                    "tenure.quartz.job-groups",
                    "settlement,reports"));
            if (addresses != null) {
                values.put("tenure.valkey.addresses", addresses);
            }
            TenureProperties p = new Binder(new MapConfigurationPropertySource(values))
                    .bindOrCreate("tenure", TenureProperties.class);
            assertThat(p.effectiveMode()).isEqualTo(JobCoordinator.Mode.DATABASE);
            assertThat(p.valkey().toConfig()).isEmpty();
            assertThat(p.lease().toOptions().ttl()).isEqualTo(Duration.ofSeconds(2));
            assertThat(p.lease().toOptions().renewEvery()).isEqualTo(Duration.ofMillis(500));
            assertThat(p.quartz().jobGroups()).containsExactly("settlement", "reports");
            assertThat(p.schema()).isEqualTo("tenure");
        }
    }

    @Test
    void valkeyClients_boundIntoTheValkeyConfig_oneByDefault() {
        TenureProperties given = new Binder(new MapConfigurationPropertySource(
                        Map.of("tenure.valkey.addresses", "127.0.0.1:6390", "tenure.valkey.clients", "4")))
                .bindOrCreate("tenure", TenureProperties.class);
        TenureProperties unset = new Binder(
                        new MapConfigurationPropertySource(Map.of("tenure.valkey.addresses", "127.0.0.1:6390")))
                .bindOrCreate("tenure", TenureProperties.class);
        assertThat(given.valkey().toConfig().orElseThrow().clients()).isEqualTo(4);
        assertThat(unset.valkey().toConfig().orElseThrow().clients()).isEqualTo(1);
    }

    @Test
    void databaseKnobs_boundIntoTheDatabaseConfig_itsDefaultsWhereUnset() {
        TenureProperties given = new Binder(new MapConfigurationPropertySource(Map.of(
                        "tenure.database.claim-lock-timeout",
                        "3s",
                        "tenure.database.threads",
                        "2",
                        "tenure.database.call-timeout",
                        "1500ms",
                        "tenure.database.listen",
                        "false",
                        "tenure.database.claim-statements-in-flight",
                        "3",
                        "tenure.database.max-claims-per-statement",
                        "1")))
                .bindOrCreate("tenure", TenureProperties.class);
        TenureProperties unset =
                new Binder(new MapConfigurationPropertySource(Map.of())).bindOrCreate("tenure", TenureProperties.class);
        DatabaseConfig c = given.database().toConfig();
        assertThat(c.claimLockTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.threads()).isEqualTo(2);
        assertThat(c.callTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(c.listen()).isFalse();
        assertThat(c.claimStatementsInFlight()).isEqualTo(3);
        assertThat(c.maxClaimsPerStatement()).isEqualTo(1);
        assertThat(c.renewLockTimeout()).isEqualTo(DatabaseConfig.DEFAULT_RENEW_LOCK_TIMEOUT);
        assertThat(unset.database().toConfig())
                .hasToString(DatabaseConfig.defaults().toString());
    }

    private static String messages(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c.getMessage()).append('\n');
        }
        return all.toString();
    }

    private static TenureConfigurationException find(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof TenureConfigurationException e) {
                return e;
            }
        }
        throw new AssertionError("no TenureConfigurationException in " + t);
    }
}
