package dev.tenure.examples;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The examples' business writes: one prepared statement on the caller's connection (and so in its transaction). */
public final class Sql {

    private Sql() {}

    /** Runs {@code sql} with {@code values} bound in order; returns the update count. */
    public static int update(Connection connection, String sql, Object... values) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            return ps.executeUpdate();
        }
    }
}
