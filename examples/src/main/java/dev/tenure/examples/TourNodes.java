package dev.tenure.examples;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.JvmProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/** What every worker process of a tour sets up: its pool and its {@link Tenure}. */
final class TourNodes {

    /** The tours' lease TTL: short, so that faults show within seconds. */
    static final Duration TTL = Duration.ofSeconds(2);

    private TourNodes() {}

    /** Starts a worker process of a tour: {@code node head... <jdbc url> <user> <password|-> tail...}. */
    static JvmProcess start(Class<?> node, List<String> head, ExampleServers servers, String... tail) {
        List<String> args = new ArrayList<>(head);
        args.addAll(servers.databaseArgs());
        args.addAll(List.of(tail));
        return JvmProcess.start(List.of(), node.getName(), args);
    }

    /** The pool on the database {@link ExampleServers#databaseArgs()} describes, from {@code args[from]} on. */
    static HikariDataSource pool(String[] args, int from) {
        return TenureDataSources.hikari(args[from], args[from + 1], args[from + 2].equals("-") ? "" : args[from + 2]);
    }

    /** The node's Tenure: leases of {@link #TTL}; Valkey at {@code valkey} in front of the database, or none for {@code -}. */
    static Tenure tenure(DataSource dataSource, String valkey, String node) {
        Tenure.Builder b = Tenure.builder().dataSource(dataSource).leaseDefaults(LeaseOptions.ofTtl(TTL));
        if (!valkey.equals("-")) {
            b.valkey(ValkeyConfig.standalone(valkey)
                    .requestTimeout(Duration.ofMillis(300))
                    .clientName(node)
                    .build());
        }
        return b.build();
    }
}
