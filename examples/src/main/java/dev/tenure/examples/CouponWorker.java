package dev.tenure.examples;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.Lease;
import dev.tenure.LeaseLostException;
import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.Leases;
import dev.tenure.LockPolicy;
import dev.tenure.Tenure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One application instance of the coupon tour:
 * {@code <valkey address> <data dir> <name> <threads> <seconds> <jdbc url> <user> <password|->}. Its
 * threads issue coupons: under a lease per coupon they read the coupon's stock from a plain file, and if any is
 * left, write it back one lower and append an issue record. The files have no locking of their own, so only
 * the lease keeps two instances from selling the same last coupon. Prints {@code HOLD <coupon>} on entering a
 * section and {@code FREE <coupon>} when its writes are done.
 */
public final class CouponWorker {

    public static void main(String[] args) throws Exception {
        String address = args[0];
        Path dir = Path.of(args[1]);
        String name = args[2];
        int threads = Integer.parseInt(args[3]);
        long until =
                System.nanoTime() + Duration.ofSeconds(Long.parseLong(args[4])).toNanos();
        try (HikariDataSource pool = TourNodes.pool(args, 5);
                Tenure tenure = TourNodes.tenure(pool, address, name)) {
            Leases leases = tenure.leases(); // on Valkey
            Thread[] ts = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                ts[t] = new Thread(() -> work(leases, dir, name, until), name + "-" + t);
                ts[t].start();
            }
            for (Thread t : ts) {
                t.join();
            }
        }
        System.out.println("EXIT " + name);
    }

    private static void work(Leases leases, Path dir, String name, long until) {
        while (System.nanoTime() < until) {
            String coupon = "coupon-" + ThreadLocalRandom.current().nextInt(CouponTour.COUPONS);
            // the article's policy for a coupon: wait a little, then tell the user to retry
            try {
                Optional<Boolean> issued = leases.runLocked(
                        coupon,
                        LockPolicy.waitUpTo(Duration.ofMillis(500)),
                        lease -> issue(lease, dir, name)); // a lease of 2 s (TourNodes.TTL), renewed while held
                if (issued.isEmpty()) {
                    System.out.println("BUSY " + coupon);
                }
            } catch (LeaseLostException e) {
                // frozen past the TTL: ensureValid() refused the write, nothing was sold on a lost lease
                System.out.println("STALE " + coupon);
            } catch (LeaseStoreUnavailableException e) {
                System.out.println("DOWN " + coupon);
            }
        }
    }

    private static boolean issue(Lease lease, Path dir, String name) {
        try {
            System.out.println("HOLD " + lease.key());
            Path stock = dir.resolve(lease.key() + ".stock");
            int left = Integer.parseInt(Files.readString(stock).trim());
            Thread.sleep(ThreadLocalRandom.current().nextInt(5, 25)); // the "database" work inside the section
            if (left <= 0) {
                System.out.println("FREE " + lease.key());
                return false;
            }
            lease.ensureValid(); // do not write on a lease we no longer hold
            Files.writeString(stock, Integer.toString(left - 1));
            Files.writeString(
                    dir.resolve("issued.log"),
                    lease.key() + " " + name + " " + left + " " + System.currentTimeMillis() + "\n",
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            System.out.println("FREE " + lease.key());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
