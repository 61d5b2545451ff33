package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.Leases;
import dev.tenure.ValkeyConfig;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The watchdog renews thousands of leases in few calls: renewals that fall due together share script calls. */
class ManyLeasesIT {

    private static long evalshaCalls(ValkeyServer server) {
        return server.commandCalls().getOrDefault("evalsha", 0L);
    }

    @Test
    void watchdog_2000LeasesHeldFor4s_allActive_renewalsCoalesced() throws Exception {
        try (ValkeyServer server = ValkeyServers.standalone();
                Leases leases = Leases.of(ValkeyLeaseStore.create(
                        ValkeyConfig.standalone(server.address()).build()))) {
            LeaseOptions options = LeaseOptions.ofTtl(Duration.ofSeconds(3));
            List<Lease> held = new ArrayList<>();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Future<Lease>> fs = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                String key = "many-" + i;
                fs.add(pool.submit(() -> leases.tryAcquire(key, options).orElseThrow()));
            }
            for (Future<Lease> f : fs) {
                held.add(f.get());
            }
            pool.shutdown();
            long before = evalshaCalls(server);
            Thread.sleep(4000);
            long calls = evalshaCalls(server) - before;
            long renewals = held.size() * (4000 / options.renewEvery().toMillis());
            System.out.printf("2000 leases, 4 s: %d script calls for about %d renewals%n", calls, renewals);
            assertThat(held).allSatisfy(l -> {
                assertThat(l.state()).isEqualTo(LeaseState.ACTIVE);
                assertThat(l.isValid()).isTrue();
            });
            assertThat((Long) server.command("DBSIZE")).isEqualTo(2000L);
            assertThat(calls).as("script calls for %d renewals", renewals).isLessThan(renewals / 10);
            held.forEach(Lease::release);
            assertThat((Long) server.command("DBSIZE")).isZero();
        }
    }
}
