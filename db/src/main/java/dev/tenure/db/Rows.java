package dev.tenure.db;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import org.jspecify.annotations.Nullable;

/** Reading database-clock times out of result sets. */
final class Rows {

    private Rows() {}

    static @Nullable Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    /** {@link #instant} of a column the statement always sets (NOT NULL, or a time it computed). */
    static Instant at(ResultSet rs, int column) throws SQLException {
        Instant t = instant(rs, column);
        if (t == null) {
            throw new SQLException("column " + column + " is NULL where the statement always returns a time");
        }
        return t;
    }
}
