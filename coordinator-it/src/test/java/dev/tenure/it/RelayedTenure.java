package dev.tenure.it;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.DatabaseConfig;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.PacketFilter;
import dev.tenure.testkit.TcpRelay;
import java.time.Duration;

/**
 * A Tenure (database mode) whose pool reaches Postgres through a {@link TcpRelay} of its own, so that a test can cut
 * its renewals, claims and finishes with a {@link PacketFilter} while the rest of the test, business transactions
 * included, goes straight to the database. Closes its Tenure, pool and relay, healed first.
 */
final class RelayedTenure implements AutoCloseable {

    private final PacketFilter filter;
    private final TcpRelay relay;
    private final HikariDataSource pool;
    private final Tenure tenure;

    RelayedTenure(CoordinatorServers servers, PacketFilter filter, Duration ttl) {
        this.filter = filter;
        String url = servers.db.jdbcUrl();
        String hostPort = url.replaceFirst("^jdbc:postgresql://([^/]*)/.*$", "$1");
        relay = TcpRelay.to(
                hostPort.substring(0, hostPort.lastIndexOf(':')),
                Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1)));
        pool = TenureDataSources.hikari(
                relay.jdbcUrl(url), servers.db.username(), servers.db.password() == null ? "" : servers.db.password());
        tenure = Tenure.builder()
                .dataSource(pool)
                .migrateSchema(false)
                .database(DatabaseConfig.builder().listen(false).build())
                .leaseDefaults(LeaseOptions.ofTtl(ttl))
                .build();
    }

    Tenure tenure() {
        return tenure;
    }

    /** Drops every packet of this Tenure's path to Postgres: its statements hear nothing until {@link #heal}. */
    void cut() {
        filter.cut(relay.port());
    }

    void heal() {
        filter.heal(relay.port());
    }

    @Override
    public void close() {
        heal();
        tenure.close();
        pool.close();
        relay.close();
    }
}
