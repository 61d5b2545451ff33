package dev.tenure.db;

import java.time.Duration;
import java.time.Instant;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A child JVM of {@link DatabaseClockIT}, run under libfaketime so its wall clock is hours off:
 * {@code <jdbcUrl> <user|-> <password|-> <key> hold|wait}. Prints {@code WALL <Instant.now()>} first.
 * <ul>
 *   <li>{@code hold}: claims with a 2 s TTL, prints {@code CLAIMED <epoch> <remainingMillis>}, then idles (never renews).</li>
 *   <li>{@code wait}: prints {@code READY}, waits until someone holds the key, then claims every 20 ms until it wins; prints {@code HELD <owner> <remainingMillis>} for the first
 *   refusal and {@code CLAIMED <epoch> <remainingMillis> AFTER <millis since that refusal>} at the end.</li>
 * </ul>
 */
public final class SkewedClaimMain {

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = "-".equals(args[1]) ? null : args[1];
        String password = "-".equals(args[2]) ? null : args[2];
        String key = args[3];
        System.out.println("WALL " + Instant.now());
        // a plain data source: under libfaketime with a negative offset, the JVM's timed waits (Hikari's start-up,
        // pgjdbc's login timeout thread) misbehave, which has nothing to do with the ledger
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(url);
        if (user != null) {
            ds.setUser(user);
        }
        if (password != null) {
            ds.setPassword(password);
        }
        try (JdbcBackend.Siblings stores = Fixture.open(ds, Fixture.NO_LISTEN)) {
            JdbcLeaseStore leases = stores.leases();
            if ("hold".equals(args[4])) {
                ClaimResult.Claimed c = (ClaimResult.Claimed) leases.claim(key, "skewed-holder", Duration.ofSeconds(2));
                System.out.println("CLAIMED " + c.epoch() + " " + c.remaining().toMillis());
                Thread.sleep(60_000);
                return;
            }
            leases.holder(key); // warm up (class loading, first connection), then wait for the other side's claim
            System.out.println("READY");
            System.out.flush();
            while (leases.holder(key).isEmpty()) {
                Thread.sleep(5);
            }
            long heldAt = 0;
            while (true) {
                ClaimResult r = leases.claim(key, "skewed-waiter", Duration.ofSeconds(2));
                if (r instanceof ClaimResult.Claimed c) {
                    System.out.println(
                            "CLAIMED " + c.epoch() + " " + c.remaining().toMillis() + " AFTER "
                                    + (heldAt == 0 ? -1 : (System.nanoTime() - heldAt) / 1_000_000));
                    return;
                }
                if (heldAt == 0) {
                    heldAt = System.nanoTime();
                    ClaimResult.Held h = (ClaimResult.Held) r;
                    System.out.println("HELD " + h.owner() + " " + h.remaining().toMillis());
                    System.out.flush();
                }
                Thread.sleep(20);
            }
        }
    }
}
