package dev.tenure.it;

import dev.tenure.JobContext;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The test workers' business write: one row in {@code business_ledger}, in a transaction that calls the fence check. */
final class FencedWrite {

    private FencedWrite() {
    }

    static void insert(DataSource ds, JobContext ctx, String fire) throws SQLException {
        try (Connection conn = ds.getConnection()) {
            conn.setAutoCommit(false);
            ctx.fence(conn);
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO business_ledger(fire_key, epoch) VALUES (?, ?)")) {
                ps.setString(1, fire);
                ps.setLong(2, ctx.epoch());
                ps.executeUpdate();
            }
            conn.commit();
        }
    }
}
