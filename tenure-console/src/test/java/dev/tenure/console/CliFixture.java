package dev.tenure.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.PostgresDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** Runs the console's CLI in this JVM against a test database, as its users type it, and reads what it printed. */
final class CliFixture {

    /** A finished command line: exit code, stdout, stderr. */
    record Result(int exit, String out, String err) {

        /** Stdout's lines. */
        List<String> lines() {
            return out.lines().toList();
        }

        /** Stdout as JSON. */
        JsonNode json() {
            try {
                return new ObjectMapper().readTree(out);
            } catch (IOException e) {
                throw new UncheckedIOException("not JSON: " + out, e);
            }
        }
    }

    private final PostgresDatabase db;
    private final HikariDataSource pool;
    private final Path passwordFile;

    CliFixture(PostgresDatabase db) {
        this.db = db;
        this.pool = TenureDataSources.hikari(db.jdbcUrl(), db.username(), db.password());
        try {
            this.passwordFile = Files.createTempFile("tenure-console-pw", ".txt");
            Files.writeString(passwordFile, db.password() == null ? "" : db.password());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    HikariDataSource pool() {
        return pool;
    }

    /** {@code tenure-console <command> <args...> --jdbc-url … --user … --password-file …}, without a terminal. */
    Result run(String command, String... args) {
        return runTyping(null, command, args);
    }

    /** {@link #run} at a terminal where the user types {@code typed} (null: no terminal). */
    Result runTyping(String typed, String command, String... args) {
        List<String> all = new ArrayList<>(List.of(command));
        all.addAll(List.of(args));
        all.addAll(List.of(
                "--jdbc-url", db.jdbcUrl(), "--user", db.username(), "--password-file", passwordFile.toString()));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        BufferedReader terminal = typed == null ? null : new BufferedReader(new StringReader(typed));
        int exit = ConsoleMain.run(terminal, new PrintWriter(out), new PrintWriter(err), all.toArray(String[]::new));
        return new Result(exit, out.toString(), err.toString());
    }

    void sql(String statement) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement()) {
            s.execute(statement);
        }
    }

    /** The first column of the first row of {@code query}, as text. */
    String query(String query) throws SQLException {
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery(query)) {
            if (!rs.next()) {
                throw new AssertionError("no row from " + query);
            }
            return rs.getString(1);
        }
    }

    void close() throws IOException {
        pool.close();
        Files.deleteIfExists(passwordFile);
    }
}
