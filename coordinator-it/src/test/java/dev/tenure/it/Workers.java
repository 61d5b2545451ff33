package dev.tenure.it;

import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import java.time.Duration;
import javax.sql.DataSource;

/** The worker processes' Tenure: {@code mode} and a Valkey address ({@code -} for none: the database mode). */
final class Workers {

    private Workers() {}

    static Tenure tenure(
            String mode,
            String valkeyAddress,
            DataSource ds,
            Duration ttl,
            Duration valkeyTimeout,
            Duration breakerOpenFor) {
        Tenure.Builder b = Tenure.builder()
                .dataSource(ds)
                .leaseDefaults(LeaseOptions.ofTtl(ttl))
                .fallbackBreaker(2, breakerOpenFor);
        if (!valkeyAddress.equals("-")) {
            b.valkey(ValkeyConfig.standalone(valkeyAddress)
                            .requestTimeout(valkeyTimeout)
                            .build())
                    .mode(JobCoordinator.Mode.valueOf(mode));
        }
        return b.build();
    }
}
