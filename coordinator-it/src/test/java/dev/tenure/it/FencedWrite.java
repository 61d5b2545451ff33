package dev.tenure.it;

import dev.tenure.JobContext;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The test workers' business write: one row in {@code business_ledger}, in a transaction that fences first and
 * completes the fire last ({@link JobContext#completeInTransaction}).
 */
final class FencedWrite {

    private FencedWrite() {}

    static void insert(DataSource ds, JobContext ctx, String fire) throws SQLException {
        ctx.completeInTransaction(ds, c -> {
            try (PreparedStatement ps =
                    c.prepareStatement("INSERT INTO business_ledger(fire_key, epoch) VALUES (?, ?)")) {
                ps.setString(1, fire);
                ps.setLong(2, ctx.epoch());
                return ps.executeUpdate();
            }
        });
    }
}
