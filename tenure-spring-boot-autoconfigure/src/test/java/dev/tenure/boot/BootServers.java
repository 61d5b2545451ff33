package dev.tenure.boot;

import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A private valkey-server and a fresh Postgres database for one test class, and the Boot properties that point an
 * application at them.
 */
public final class BootServers implements AutoCloseable {

    private final PostgresDatabase db;
    private final ValkeyServer valkey;

    private BootServers(PostgresDatabase db, ValkeyServer valkey) {
        this.db = db;
        this.valkey = valkey;
    }

    /** Both servers, for {@code testClass}. */
    public static BootServers start(Class<?> testClass) {
        PostgresDatabase db = PostgresDatabases.forClass(testClass);
        try {
            return new BootServers(db, ValkeyServers.standalone());
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    public PostgresDatabase db() {
        return db;
    }

    public ValkeyServer valkey() {
        return valkey;
    }

    /** {@code spring.datasource.*} of the database. */
    public List<String> dataSource() {
        List<String> p = new ArrayList<>(List.of("spring.datasource.url=" + db.jdbcUrl()));
        if (db.username() != null) {
            p.add("spring.datasource.username=" + db.username());
        }
        if (db.password() != null) {
            p.add("spring.datasource.password=" + db.password());
        }
        return p;
    }

    /** {@link #dataSource()} and {@code tenure.valkey.addresses} of the server. */
    public List<String> both() {
        List<String> p = new ArrayList<>(dataSource());
        p.add("tenure.valkey.addresses=" + valkey.address());
        return p;
    }

    /** The first column of the first row of {@code sql}, on the database. */
    public long queryLong(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getLong(1) : -1;
        }
    }

    /** The first column of every row of {@code sql}, on the database. */
    public List<String> queryStrings(String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Runs {@code sql} on the database. */
    public void execute(String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
                Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    @Override
    public void close() {
        try {
            valkey.close();
        } finally {
            db.close();
        }
    }
}
