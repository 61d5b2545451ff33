package dev.tenure.db;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The connection pool Tenure's ledger runs on: small, bounded, with short timeouts, so every ledger operation fails
 * fast and typed instead of hanging. Immutable; validated on construction. See {@code db/README.md} for each knob.
 *
 * @param jdbcUrl           e.g. {@code jdbc:postgresql://127.0.0.1:5432/app}
 * @param user              may be null when the URL carries it
 * @param password          may be null
 * @param maxPoolSize       connections in the pool, fixed (default {@value #DEFAULT_MAX_POOL_SIZE}); the LISTEN
 *                          connection of the database lease store (elections included) takes one of them for good
 * @param connectionTimeout how long an operation waits for a free connection before failing with
 *                          {@link LedgerUnavailableException} (default 1.5 s; Hikari's minimum is 250 ms)
 * @param statementTimeout  the server-side {@code statement_timeout} of every connection (default 3 s); also bounds
 *                          how long a claim waits for a fenced transaction's row lock
 * @param applicationName   shown in {@code pg_stat_activity} (default {@code tenure})
 */
public record PoolConfig(
        String jdbcUrl,
        @Nullable String user,
        @Nullable String password,
        int maxPoolSize,
        Duration connectionTimeout,
        Duration statementTimeout,
        String applicationName) {

    public static final int DEFAULT_MAX_POOL_SIZE = 6;
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofMillis(1500);
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(3);

    public PoolConfig {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException(
                    "jdbcUrl must be a Postgres URL (jdbc:postgresql://host:port/db), got '" + jdbcUrl + "'");
        }
        if (maxPoolSize < 2 || maxPoolSize > 64) {
            throw new IllegalArgumentException("maxPoolSize must be between 2 and 64 (got " + maxPoolSize + ")");
        }
        Objects.requireNonNull(connectionTimeout, "connectionTimeout");
        if (connectionTimeout.toMillis() < 250) {
            throw new IllegalArgumentException(
                    "connectionTimeout must be at least 250 ms (got " + connectionTimeout + ")");
        }
        Objects.requireNonNull(statementTimeout, "statementTimeout");
        if (statementTimeout.toMillis() < 100) {
            throw new IllegalArgumentException(
                    "statementTimeout must be at least 100 ms (got " + statementTimeout + ")");
        }
        applicationName = applicationName == null ? "tenure" : applicationName;
    }

    /** Every component, with the password masked ({@code ****} when set, {@code null} when not). */
    @Override
    public String toString() {
        return "PoolConfig[jdbcUrl=" + jdbcUrl + ", user=" + user + ", password=" + (password == null ? null : "****")
                + ", maxPoolSize=" + maxPoolSize + ", connectionTimeout=" + connectionTimeout
                + ", statementTimeout=" + statementTimeout + ", applicationName=" + applicationName + "]";
    }

    /** Defaults for everything but the URL and credentials. */
    public static Builder builder(String jdbcUrl) {
        return new Builder(jdbcUrl);
    }

    /** Builds a {@link PoolConfig}. Not thread-safe. */
    public static final class Builder {
        private final String jdbcUrl;
        private @Nullable String user;
        private @Nullable String password;
        private int maxPoolSize = DEFAULT_MAX_POOL_SIZE;
        private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
        private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;
        private String applicationName = "tenure";

        private Builder(String jdbcUrl) {
            this.jdbcUrl = jdbcUrl;
        }

        public Builder user(String user) {
            this.user = user;
            return this;
        }

        public Builder password(String password) {
            this.password = password;
            return this;
        }

        public Builder maxPoolSize(int size) {
            this.maxPoolSize = size;
            return this;
        }

        public Builder connectionTimeout(Duration timeout) {
            this.connectionTimeout = timeout;
            return this;
        }

        public Builder statementTimeout(Duration timeout) {
            this.statementTimeout = timeout;
            return this;
        }

        public Builder applicationName(String name) {
            this.applicationName = name;
            return this;
        }

        public PoolConfig build() {
            return new PoolConfig(
                    jdbcUrl, user, password, maxPoolSize, connectionTimeout, statementTimeout, applicationName);
        }
    }
}
