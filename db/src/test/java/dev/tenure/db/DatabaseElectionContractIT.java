package dev.tenure.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.Tenure;
import dev.tenure.testkit.LeaderElectionContract;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The leader-election contract in the database-only configuration: participants are Tenures without Valkey on one real
 * Postgres database (the kit's, fresh for this class), woken by the JDBC store's release notifications.
 */
class DatabaseElectionContractIT extends LeaderElectionContract {

    private static Fixture fx;
    private static HikariDataSource pool;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(DatabaseElectionContractIT.class);
        // every participant's store holds a LISTEN connection for good: room for all of them and their calls
        pool = fx.pool(Fixture.poolConfig(fx.db).maxPoolSize(16));
    }

    @AfterAll
    static void stop() {
        pool.close();
        fx.close();
    }

    @Override
    protected Tenure.Builder tenure() {
        return Tenure.builder().dataSource(pool).migrateSchema(false);
    }

    @Override
    protected DataSource dataSource() {
        return pool;
    }
}
