package dev.tenure.valkey;

import dev.tenure.Leases;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.CounterFuzzer;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A {@link CounterFuzzer} process on Valkey: {@code standalone|cluster <address,...> <key> <counter file> <threads>
 * <increments>}. Prints {@code READY}, hammers at once, prints {@code DONE <n>} and exits 0.
 */
public final class CounterFuzzerMain {

    private CounterFuzzerMain() {}

    public static void main(String[] args) throws Exception {
        boolean cluster = args[0].equals("cluster");
        String[] addresses = args[1].split(",");
        ValkeyConfig cfg = (cluster ? ValkeyConfig.cluster(addresses) : ValkeyConfig.standalone(addresses))
                .requestTimeout(Duration.ofSeconds(2))
                .clientName("fuzzer")
                .build();
        try (Leases leases = Leases.of(ValkeyLeaseStore.create(cfg))) {
            System.out.println("READY");
            int n = CounterFuzzer.hammer(
                    leases, args[2], Path.of(args[3]), Integer.parseInt(args[4]), Integer.parseInt(args[5]));
            System.out.println("DONE " + n);
        }
        System.exit(0);
    }
}
