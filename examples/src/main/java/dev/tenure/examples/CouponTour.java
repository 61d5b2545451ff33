package dev.tenure.examples;

import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.JvmProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The coupon tour (the field guide's case, plain locks). Three worker processes sell {@value #STOCK} coupons of each
 * of {@value #COUPONS} kinds, under per-coupon Tenure leases on Valkey ({@code tenure.leases()}). Mid-run the tour
 * kills one worker with SIGKILL while it is inside a critical section, and freezes another (SIGSTOP) for 3 s. At the
 * end it prints a table: sold per coupon, per worker, and the checks that matter (never oversold, no coupon sold
 * twice at the same stock level).
 *
 * <p>Servers: see {@link ExampleServers} (Postgres holds only Tenure's schema here; the coupons are plain files).
 */
public final class CouponTour {

    static final int COUPONS = 4;
    static final int STOCK = 600;
    private static final int SECONDS = 12;

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("tenure-demo");
        for (int c = 0; c < COUPONS; c++) {
            Files.writeString(dir.resolve("coupon-" + c + ".stock"), Integer.toString(STOCK));
        }
        String held;
        long killedAt;
        long stale;
        try (ExampleServers servers = ExampleServers.postgresAndValkey(CouponTour.class)) {
            System.out.println("Valkey at " + servers.valkeyAddress() + ", data in " + dir);
            TenureSchema.migrate(servers.dataSource());
            List<JvmProcess> workers = new ArrayList<>();
            for (String name : List.of("worker-a", "worker-b", "worker-c")) {
                workers.add(TourNodes.start(
                        CouponWorker.class,
                        List.of(servers.valkeyAddress(), dir.toString(), name, "4", Integer.toString(SECONDS)),
                        servers));
            }
            Thread.sleep(4000);
            JvmProcess victim = workers.get(0);
            awaitInsideSection(victim);
            victim.kill();
            killedAt = System.currentTimeMillis();
            held = heldAtExit(victim.stdoutLines());
            System.out.println("killed worker-a (kill -9)"
                    + (held == null
                            ? " between sections"
                            : " while it was inside " + held + "; that lease expires after its 2 s TTL"));
            Thread.sleep(1000);
            awaitInsideSection(workers.get(1));
            workers.get(1).pause();
            System.out.println("froze worker-b (SIGSTOP) for 3 s");
            Thread.sleep(3000);
            workers.get(1).resume();
            System.out.println("resumed worker-b");
            for (JvmProcess w : workers.subList(1, 3)) {
                w.waitFor(Duration.ofSeconds(SECONDS + 30));
            }
            stale = workers.get(1).stdoutLines().stream()
                    .filter(l -> l.startsWith("STALE "))
                    .count();
            workers.forEach(JvmProcess::close);
        }
        summary(dir, held, killedAt, stale);
    }

    /** Waits (up to 5 s) until the worker's latest output line says it just entered a critical section. */
    private static void awaitInsideSection(JvmProcess worker) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < until) {
            List<String> lines = worker.stdoutLines();
            if (!lines.isEmpty() && lines.get(lines.size() - 1).startsWith("HOLD ")) {
                return;
            }
            Thread.sleep(1);
        }
    }

    /** The coupon a killed worker was inside of: its last HOLD without a FREE after it (or null). */
    private static String heldAtExit(List<String> lines) {
        Map<String, Integer> open = new TreeMap<>();
        for (String l : lines) {
            if (l.startsWith("HOLD ")) {
                open.merge(l.substring(5).trim(), 1, Integer::sum);
            } else if (l.startsWith("FREE ")) {
                open.merge(l.substring(5).trim(), -1, Integer::sum);
            }
        }
        return open.entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse(null);
    }

    private static void summary(Path dir, String heldByVictim, long killedAt, long stale) throws Exception {
        List<String[]> issued = Files.exists(dir.resolve("issued.log"))
                ? Files.readAllLines(dir.resolve("issued.log")).stream()
                        .map(l -> l.split(" "))
                        .toList()
                : List.of();
        Map<String, Long> perWorker =
                issued.stream().collect(Collectors.groupingBy(r -> r[1], TreeMap::new, Collectors.counting()));
        System.out.println();
        System.out.printf("%-10s %6s %6s %6s %10s %10s%n", "coupon", "stock", "sold", "left", "oversold", "dup-level");
        boolean ok = true;
        for (int c = 0; c < COUPONS; c++) {
            String coupon = "coupon-" + c;
            List<String[]> mine =
                    issued.stream().filter(r -> r[0].equals(coupon)).toList();
            int left = Integer.parseInt(
                    Files.readString(dir.resolve(coupon + ".stock")).trim());
            long distinctLevels = mine.stream().map(r -> r[2]).distinct().count();
            long dup = mine.size() - distinctLevels;
            long oversold = Math.max(0, mine.size() - STOCK);
            boolean consistent = mine.size() + left == STOCK;
            ok &= dup == 0 && oversold == 0 && consistent;
            System.out.printf(
                    "%-10s %6d %6d %6d %10d %10d%s%n",
                    coupon, STOCK, mine.size(), left, oversold, dup, consistent ? "" : "   <- sold + left != stock");
        }
        System.out.println();
        perWorker.forEach((w, n) -> System.out.printf("%-10s sold %d%n", w, n));
        issued.stream()
                .filter(r -> heldByVictim != null && r[0].equals(heldByVictim) && Long.parseLong(r[3]) > killedAt)
                .findFirst()
                .ifPresent(r -> System.out.printf(
                        "%n%s was sold again %d ms after its holder was killed (by %s): the TTL, not a duplicate%n",
                        heldByVictim, Long.parseLong(r[3]) - killedAt, r[1]));
        System.out.printf(
                "worker-b refused %d write(s) after its freeze: its leases had expired (LeaseLostException)%n", stale);
        System.out.println();
        System.out.println(
                ok
                        ? "RESULT: every coupon sold at most once per stock level, none oversold (duplicates = 0)"
                        : "RESULT: VIOLATION (see table)");
        if (!ok) {
            System.exit(1);
        }
    }
}
