package dev.tenure.boot.autoconfigure;

import static dev.tenure.boot.autoconfigure.PropertyChecks.check;

import dev.tenure.db.PoolConfig;
import java.time.Duration;
import java.util.Optional;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * tenure.datasource.*: a small pool of Tenure's own for its ledger (leases, epochs, run records), opened only
 * when url is set, with PoolConfig's short timeouts. By default Tenure uses the application's
 * DataSource and opens no pool. Either way fence checks and completions run on the connection of your business
 * transaction, so the URL must name the same Postgres database as your business tables.
 *
 * @param url               JDBC URL of the Postgres database; empty = use the application's DataSource
 * @param username          the database user
 * @param password          its password
 * @param maxPoolSize       the pool's size (2 to 64; one connection listens for releases)
 * @param connectionTimeout how long a ledger operation waits for a connection (at least 250 ms)
 * @param statementTimeout  the server-side statement timeout of the pool's connections (at least 100 ms)
 */
public record DatasourceProperties(
        String url,
        String username,
        String password,
        @DefaultValue("6") int maxPoolSize,
        @DefaultValue("1500ms") Duration connectionTimeout,
        @DefaultValue("3s") Duration statementTimeout) {

    public DatasourceProperties {
        if (url != null) {
            build(url, username, password, maxPoolSize, connectionTimeout, statementTimeout);
        }
    }

    /** The pool's configuration, or empty when no URL is set (Tenure then uses the application's DataSource). */
    public Optional<PoolConfig> toPoolConfig() {
        return url == null
                ? Optional.empty()
                : Optional.of(build(url, username, password, maxPoolSize, connectionTimeout, statementTimeout));
    }

    /**
     * PoolConfig checks its values together when built; each value is first checked alone (next to the defaults of the
     * others), so that a failure names its own property.
     */
    private static PoolConfig build(
            String url,
            String username,
            String password,
            int maxPoolSize,
            Duration connectionTimeout,
            Duration statementTimeout) {
        String valid = "jdbc:postgresql://localhost/tenure";
        check("tenure.datasource.url", url, () -> PoolConfig.builder(url).build());
        check(
                "tenure.datasource.max-pool-size",
                maxPoolSize,
                () -> PoolConfig.builder(valid).maxPoolSize(maxPoolSize).build());
        check(
                "tenure.datasource.connection-timeout",
                connectionTimeout,
                () -> PoolConfig.builder(valid)
                        .connectionTimeout(connectionTimeout)
                        .build());
        check(
                "tenure.datasource.statement-timeout",
                statementTimeout,
                () -> PoolConfig.builder(valid)
                        .statementTimeout(statementTimeout)
                        .build());
        return PoolConfig.builder(url)
                .user(username)
                .password(password)
                .maxPoolSize(maxPoolSize)
                .connectionTimeout(connectionTimeout)
                .statementTimeout(statementTimeout)
                .build();
    }

    @Override
    public String toString() {
        return "DatasourceProperties[url=" + url + ", username=" + username + ", maxPoolSize=" + maxPoolSize + "]";
    }
}
