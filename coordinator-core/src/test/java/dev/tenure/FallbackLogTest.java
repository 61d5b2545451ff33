package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.memory.InMemoryRunLedger;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 35 item 8, through a coordinator whose Valkey fails and comes back, on a settable clock: an outage is one WARN
 * when it starts (with the cause) and one INFO when it ends (with its duration), and it is counted once in
 * {@link JobCoordinator#fallbacks()}, however many retries fail inside it. The lines are read from slf4j-simple's output (System.err).
 */
class FallbackLogTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final Ticker ticker = now::get;
    private final FaultyLeaseStore valkeyStore = new FaultyLeaseStore(Ticker.system(), true);
    private final FaultyLeaseStore dbStore = new FaultyLeaseStore(Ticker.system());
    private final Leases valkey = Leases.of(valkeyStore);
    private final Leases database = Leases.of(dbStore);
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();
    private PrintStream stderr;

    @BeforeEach
    void capture() {
        stderr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void close() {
        System.setErr(stderr);
        valkey.close();
        database.close();
    }

    private List<String> lines(String containing) {
        return captured.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(l -> l.contains(containing))
                .toList();
    }

    private void runs(JobCoordinator c, String prefix, int n) {
        for (int i = 0; i < n; i++) {
            assertThat(c.run("job", prefix + i, RunPolicy.skipFire(), ctx -> 1).status())
                    .isEqualTo(RunOutcome.Status.EXECUTED);
            now.addAndGet(Duration.ofSeconds(1).toNanos());
        }
    }

    @Test
    void valkeyDownForAMinute_oneWarnWhenTheOutageStarts_oneInfoWhenItEnds_andOneOutageCounted() {
        JobCoordinator c = new JobCoordinator(
                Tenure.builder()
                        .ticker(ticker)
                        .fallbackBreaker(2, Duration.ofSeconds(5))
                        .settings(),
                database,
                valkey,
                new InMemoryRunLedger(dbStore),
                dev.tenure.metrics.RunMetrics.none());
        runs(c, "up-", 2);
        valkeyStore.down.set(true);
        runs(c, "down-", 30); // 30 s on the coordinator's clock; the breaker tries Valkey again every 5 s
        now.addAndGet(Duration.ofSeconds(31).toNanos()); // past a minute since the outage began
        runs(c, "still-down-", 10);
        assertThat(c.inFallback()).isTrue();
        assertThat(c.fallbacks()).as("outages counted, not retries").isEqualTo(1);
        assertThat(lines("WARN"))
                .as("WARN lines in 71 s of failures, with 13 retries inside")
                .hasSize(1)
                .allSatisfy(l -> assertThat(l)
                        .contains("Valkey fallback started")
                        .contains("store is down (test)")
                        .contains("database alone"));

        valkeyStore.down.set(false);
        now.addAndGet(Duration.ofSeconds(6).toNanos()); // the breaker lets a call through again
        runs(c, "back-", 3);
        assertThat(c.inFallback()).isFalse();
        assertThat(lines("Valkey fallback ended"))
                .hasSize(1)
                .allSatisfy(l -> assertThat(l)
                        .contains("INFO")
                        .contains("Valkey answers again")
                        .contains(" ms"));
        assertThat(lines("WARN")).hasSize(1);

        valkeyStore.down.set(true);
        runs(c, "again-", 3);
        assertThat(c.fallbacks()).as("a second outage").isEqualTo(2);
        assertThat(lines("Valkey fallback started")).hasSize(2);
    }
}
