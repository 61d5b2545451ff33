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
 * Issue 21 item 6, through a coordinator whose Valkey fails and comes back, on a settable clock: one INFO line when the
 * fallback starts and one when it ends, each with the reason, and a WARN about the unreachable Valkey at most once a
 * minute however many runs fail. The lines are read from slf4j-simple's output (System.err).
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
    void valkeyDownThenBack_oneLineWhenTheFallbackStarts_oneWhenItEnds_andOneWarnAMinute() {
        JobCoordinator c = JobCoordinator.builder(database, new InMemoryRunLedger(dbStore))
                .valkey(valkey)
                .ticker(ticker)
                .fallbackBreaker(2, Duration.ofSeconds(5))
                .build();
        runs(c, "up-", 2);
        valkeyStore.down.set(true);
        runs(c, "down-", 30); // 30 s on the coordinator's clock; the breaker tries Valkey again every 5 s
        assertThat(c.fallbacks()).as("breaker openings").isGreaterThan(2);
        assertThat(lines("Valkey fallback started"))
                .hasSize(1)
                .allSatisfy(l -> assertThat(l).contains("INFO").contains("store is down (test)"));
        assertThat(lines("WARN"))
                .as("WARN lines in 30 s of failures")
                .hasSize(1)
                .allSatisfy(l -> assertThat(l).contains("store is down (test)").contains("database alone"));
        now.addAndGet(Duration.ofSeconds(31).toNanos()); // past a minute since the first WARN
        runs(c, "still-down-", 1);
        assertThat(lines("WARN")).as("WARN lines after a minute").hasSize(2);

        valkeyStore.down.set(false);
        now.addAndGet(Duration.ofSeconds(6).toNanos()); // the breaker lets a call through again
        runs(c, "back-", 3);
        assertThat(c.inFallback()).isFalse();
        assertThat(lines("Valkey fallback ended"))
                .hasSize(1)
                .allSatisfy(l -> assertThat(l).contains("INFO").contains("Valkey answers again"));
        assertThat(lines("Valkey fallback started")).hasSize(1);
    }
}
