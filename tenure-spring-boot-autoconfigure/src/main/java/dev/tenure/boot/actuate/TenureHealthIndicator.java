package dev.tenure.boot.actuate;

import dev.tenure.JobCoordinator;
import dev.tenure.Tenure;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Tenure's health: whether its database answers, whether Valkey answers, the coordinator's mode and whether runs
 * currently bypass Valkey ({@code fallbackActive}). Valkey is asked with one read through Tenure's own client; when it
 * does not answer, the detail {@code valkey} says why in one line that names the server, e.g. {@code "Valkey
 * 10.0.0.5:6379: WRONGPASS: invalid username-password pair or user is disabled."}. DOWN
 * when the database does not answer (no run can be claimed), or when Valkey does not answer in the {@code VALKEY} mode
 * (runs are refused); UP otherwise, with an unreachable Valkey in the details while the database fallback carries the
 * runs. Thread-safe.
 */
public final class TenureHealthIndicator extends AbstractHealthIndicator {

    private static final int VALID_SECONDS = 2;

    private final Tenure tenure;
    private final DataSource dataSource;

    /** @param dataSource the data source of Tenure's ledger */
    public TenureHealthIndicator(Tenure tenure, DataSource dataSource) {
        super("Tenure health check failed");
        this.tenure = tenure;
        this.dataSource = dataSource;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        JobCoordinator coordinator = tenure.coordinator();
        Optional<String> database = databaseProblem();
        Optional<String> valkey = tenure.valkeyProblem();
        builder.withDetail("mode", coordinator.mode().name())
                .withDetail("database", database.map(p -> "unreachable: " + p).orElse("reachable"))
                .withDetail("valkey", !tenure.usesValkey() ? "not configured" : valkey.orElse("reachable"))
                .withDetail("fallbackActive", coordinator.inFallback())
                .withDetail("fallbacks", coordinator.fallbacks());
        boolean refused = valkey.isPresent() && coordinator.mode() == JobCoordinator.Mode.VALKEY;
        if (database.isPresent() || refused) {
            builder.down();
        } else {
            builder.up();
        }
    }

    private Optional<String> databaseProblem() {
        try (Connection c = dataSource.getConnection()) {
            return c.isValid(VALID_SECONDS) ? Optional.empty() : Optional.of("connection not valid");
        } catch (SQLException e) {
            return Optional.of(e.getMessage());
        }
    }
}
