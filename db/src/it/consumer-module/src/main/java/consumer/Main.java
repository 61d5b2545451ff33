package consumer;

import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import java.sql.Connection;
import java.sql.Statement;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Runs one coordinated fire twice in a database of its own (created on the Postgres the tests use, dropped at the
 * end): EXECUTED, then SKIPPED_ALREADY_DONE. Exits with 1 otherwise, which fails the build.
 */
public final class Main {

    public static void main(String[] args) throws Exception {
        String url = env("TENURE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/postgres");
        String user = env("TENURE_PG_USER", "postgres");
        String password = System.getenv("TENURE_PG_PASSWORD");
        String database = "tenure_consumer_" + ProcessHandle.current().pid();
        PGSimpleDataSource admin = dataSource(url, user, password);
        execute(admin, "CREATE DATABASE " + database);
        int exit = 1;
        try {
            PGSimpleDataSource ds = dataSource(url, user, password);
            ds.setDatabaseName(database);
            try (Tenure tenure = Tenure.builder().dataSource(ds).build()) {
                RunOutcome<Integer> first = tenure.coordinator().run("consumer-job", "fire-1", RunPolicy.skipFire(), c -> 1);
                RunOutcome<Integer> second = tenure.coordinator().run("consumer-job", "fire-1", RunPolicy.skipFire(), c -> 1);
                System.out.println("first run: " + first.status() + ", second run: " + second.status() + ", core "
                        + Tenure.class.getModule().getName() + ", named: " + Tenure.class.getModule().isNamed());
                if (first.status() == RunOutcome.Status.EXECUTED
                        && second.status() == RunOutcome.Status.SKIPPED_ALREADY_DONE
                        && Tenure.class.getModule().getName().equals("dev.tenure.core")) {
                    exit = 0;
                }
            }
        } finally {
            execute(admin, "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
        System.exit(exit);
    }

    private static PGSimpleDataSource dataSource(String url, String user, String password) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(url);
        ds.setUser(user);
        if (password != null) {
            ds.setPassword(password);
        }
        return ds;
    }

    private static void execute(PGSimpleDataSource ds, String sql) throws Exception {
        try (Connection c = ds.getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static String env(String name, String otherwise) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? otherwise : v;
    }
}
