package dev.tenure.it;

import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureDataSources;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * A holder that stays inside its fenced transaction for a while, for a test to freeze it there:
 * {@code <valkey address|-> <jdbc url> <user> <password> <job> <ttl ms> <hold ms>}. It runs fire {@code held} of
 * {@code job}; inside {@link dev.tenure.JobContext#completeInTransaction} it inserts its business row, prints
 * {@code FENCED <epoch>}, and stays idle in the open transaction for {@code hold ms} (less than the TTL) before it
 * completes and commits. Then it prints {@code OUTCOME <status> <error>} and exits.
 */
public final class FrozenHolderWorker {

    public static void main(String[] a) throws Exception {
        String password = a[3].equals("-") ? "" : a[3];
        DataSource ds = TenureDataSources.hikari(a[1], a[2], password);
        String job = a[4];
        Duration ttl = Duration.ofMillis(Long.parseLong(a[5]));
        long hold = Long.parseLong(a[6]);
        try (Tenure tenure = Workers.tenure(
                "VALKEY_WITH_DATABASE_FALLBACK", a[0], ds, ttl, Duration.ofMillis(300), Duration.ofSeconds(2))) {
            RunOutcome<Integer> o = tenure.coordinator()
                    .run(
                            job,
                            "held",
                            RunPolicy.skipFire(),
                            ctx -> ctx.completeInTransaction(ds, c -> {
                                try (PreparedStatement ps = c.prepareStatement(
                                        "INSERT INTO business_ledger(fire_key, epoch) VALUES ('held', ?)")) {
                                    ps.setLong(1, ctx.epoch());
                                    ps.executeUpdate();
                                }
                                System.out.println("FENCED " + ctx.epoch());
                                long until = System.nanoTime()
                                        + TimeUnit.MILLISECONDS.toNanos(
                                                hold); // unscaled: how long the holder holds, not a bound
                                while (System.nanoTime()
                                        < until) { // idle in the open transaction, holding the fence lock
                                    LockSupport.parkNanos(until - System.nanoTime());
                                }
                                return 1;
                            }));
            System.out.println("OUTCOME " + o.status() + " " + o.error());
        }
        System.exit(0);
    }
}
