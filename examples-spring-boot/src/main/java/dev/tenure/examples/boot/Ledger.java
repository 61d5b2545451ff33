package dev.tenure.examples.boot;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** The settlement's business side: computing a slot's total (it takes {@code settlement.work}) and recording it. */
@Component
public class Ledger {

    private final String instance;
    private final Duration work;

    public Ledger(@Value("${settlement.instance}") String instance, @Value("${settlement.work}") Duration work) {
        this.instance = instance;
        this.work = work;
    }

    /** The slot's total; takes {@code settlement.work}, during which this instance holds the job. */
    public long totalOf(String slot) {
        try {
            Thread.sleep(work.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Instant.parse(slot).getEpochSecond() % 1000 * 10;
    }

    /** One settlement row, on the caller's connection (and so in its transaction). */
    public int record(Connection c, String slot, long amount, long epoch) throws SQLException {
        try (PreparedStatement insert =
                c.prepareStatement("INSERT INTO settlement (slot, amount, instance, epoch) VALUES (?, ?, ?, ?)")) {
            insert.setString(1, slot);
            insert.setLong(2, amount);
            insert.setString(3, instance);
            insert.setLong(4, epoch);
            return insert.executeUpdate();
        }
    }
}
