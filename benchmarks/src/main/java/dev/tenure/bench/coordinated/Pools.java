package dev.tenure.bench.coordinated;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.PoolConfig;
import dev.tenure.db.TenureDataSources;
import java.time.Duration;

/**
 * One pool configuration for every library in the benchmark: Tenure's own Hikari settings
 * ({@link TenureDataSources#hikariConfig}: fixed size, autocommit on, READ COMMITTED, server-side statement timeout),
 * so no peer runs on a better- or worse-tuned pool. With {@code syncCommitOff} every connection of the pool runs with
 * {@code synchronous_commit=off} (a session setting sent in the start-up packet; the server's configuration is not
 * touched): commits then return before their WAL is flushed, which shows what the fsync costs.
 */
public final class Pools {

    private Pools() {}

    public static HikariDataSource create(String url, String user, int size, boolean syncCommitOff, String name) {
        HikariConfig h = TenureDataSources.hikariConfig(PoolConfig.builder(url)
                .user(user)
                .maxPoolSize(size)
                .connectionTimeout(Duration.ofSeconds(10))
                .statementTimeout(Duration.ofSeconds(30))
                .applicationName(name)
                .build());
        h.setPoolName(name);
        if (syncCommitOff) {
            String options = h.getDataSourceProperties().getProperty("options", "");
            h.getDataSourceProperties().setProperty("options", (options + " -c synchronous_commit=off").trim());
        }
        return new HikariDataSource(h);
    }
}
