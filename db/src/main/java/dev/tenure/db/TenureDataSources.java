package dev.tenure.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.util.Properties;

/**
 * HikariCP pools configured for Tenure's ledger (see {@link PoolConfig} and {@code db/README.md}):
 * a fixed, small pool; a short {@code connectionTimeout}; a server-side {@code statement_timeout} on every
 * connection (sent in the startup packet, no extra round trip); pgjdbc connect, login and socket timeouts so that
 * even a frozen server cannot hold a caller longer than about {@code statementTimeout + 2 s}; TCP keep-alive; and a
 * pool that opens its first connection at once (so a cold JVM pays the driver's start-up cost there, not in the
 * first operation) but starts even while the database is down (operations then fail typed within
 * {@code connectionTimeout}).
 *
 * <p>The caller owns the returned pool and closes it.
 */
public final class TenureDataSources {

    private TenureDataSources() {}

    /** A pool with the defaults of {@link PoolConfig}. */
    public static HikariDataSource hikari(String jdbcUrl, String user, String password) {
        return hikari(PoolConfig.builder(jdbcUrl).user(user).password(password).build());
    }

    public static HikariDataSource hikari(PoolConfig cfg) {
        return new HikariDataSource(hikariConfig(cfg));
    }

    /** The Hikari configuration {@link #hikari(PoolConfig)} uses, for callers who want to adjust it further. */
    public static HikariConfig hikariConfig(PoolConfig cfg) {
        HikariConfig h = new HikariConfig();
        h.setPoolName("tenure-db");
        h.setJdbcUrl(cfg.jdbcUrl());
        if (cfg.user() != null) {
            h.setUsername(cfg.user());
        }
        if (cfg.password() != null) {
            h.setPassword(cfg.password());
        }
        h.setMaximumPoolSize(cfg.maxPoolSize());
        h.setMinimumIdle(cfg.maxPoolSize());
        h.setConnectionTimeout(cfg.connectionTimeout().toMillis());
        h.setValidationTimeout(
                Math.max(250, Math.min(1000, cfg.connectionTimeout().toMillis() / 2)));
        h.setKeepaliveTime(30_000);
        h.setInitializationFailTimeout(0); // one connection at once if the database answers; start anyway if not
        h.setAutoCommit(true);
        h.setTransactionIsolation("TRANSACTION_READ_COMMITTED");
        h.setDataSourceProperties(driverProperties(cfg));
        return h;
    }

    static Properties driverProperties(PoolConfig cfg) {
        long statementMillis = cfg.statementTimeout().toMillis();
        int connectSeconds =
                (int) Math.max(1, ceilSeconds(cfg.connectionTimeout().toMillis()));
        Properties p = new Properties();
        p.setProperty("options", "-c statement_timeout=" + statementMillis);
        p.setProperty("connectTimeout", Integer.toString(connectSeconds));
        p.setProperty("loginTimeout", Integer.toString(connectSeconds));
        // a backstop for a server that stops answering altogether (statement_timeout needs a live server)
        p.setProperty("socketTimeout", Long.toString(ceilSeconds(statementMillis) + 2));
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("ApplicationName", cfg.applicationName());
        return p;
    }

    private static long ceilSeconds(long millis) {
        return (millis + 999) / 1000;
    }
}
