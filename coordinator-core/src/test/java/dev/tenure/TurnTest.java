package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.spi.AcquireResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A process's turn on a key: how many hand-offs between its own threads it makes before a release lets other processes
 * in. Two threads of one process take the key in turns; every section moves a settable clock 30 ms on. The store logs
 * each call: {@code K} a hand-off keeping the expiry, {@code H} a hand-off that asks whether others wait, {@code R} a
 * release. A run of hand-offs between two releases is one turn.
 */
class TurnTest {

    private static final Duration SECTION = Duration.ofMillis(30);

    private final AtomicLong time = new AtomicLong(1_000_000_000L);
    private Leases leases;

    @AfterEach
    void close() {
        if (leases != null) {
            leases.close();
        }
    }

    @Test
    void othersWaiting_aTurnEndsAfterMaxTurn_beforeTheCountIsReached() throws Exception {
        // hand-offs 30, 60 and 90 ms into the turn keep the expiry; the one at 120 ms asks, hears that others wait, and
        // the next release lets them in
        assertTurns(
                "max turn 100 ms, others waiting", run(new LoggingStore(true), 1000, Duration.ofMillis(100)), "KKKH");
    }

    @Test
    void nobodyWaitingElsewhere_theTurnGoesOnPastMaxTurn() throws Exception {
        LoggingStore store = new LoggingStore(false);
        String log = run(store, 1000, Duration.ofMillis(100));
        System.out.println("max turn 100 ms, nobody waiting elsewhere: " + log);
        // every fourth hand-off asks, hears nobody, and the turn starts again
        assertThat(log.split("R")).as(log).anySatisfy(t -> assertThat(t).startsWith("KKKHKKKH"));
    }

    @Test
    void othersWaiting_aTurnEndsAfterMaxLocalHandOffs_beforeMaxTurn() throws Exception {
        assertTurns("max 2 hand-offs, others waiting", run(new LoggingStore(true), 2, Duration.ofHours(1)), "KH");
    }

    /** Every turn of {@code log} is at most as long as {@code full}, and some turns are exactly {@code full}. */
    private static void assertTurns(String what, String log, String full) {
        System.out.println(what + ": " + log);
        assertThat(turns(log))
                .as(log)
                .allSatisfy(t -> assertThat(t.length()).isLessThanOrEqualTo(full.length()))
                .contains(full);
    }

    /** Two threads, 24 sections each; returns the store's log of hand-offs and releases. */
    private String run(LoggingStore store, int maxLocalHandOffs, Duration maxTurn) throws Exception {
        leases = Leases.builder(store)
                .ticker(time::get)
                .maxLocalHandOffs(maxLocalHandOffs)
                .maxTurn(maxTurn)
                .build();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                fs.add(pool.submit(() -> {
                    for (int i = 0; i < 24; i++) {
                        Optional<Lease> held = leases.acquire("k", Duration.ofHours(1), LeaseOptions.ofDefaults());
                        assertThat(held).isPresent();
                        time.addAndGet(SECTION.toNanos());
                        // real time for the other thread to queue again, so the release finds it parked
                        TimeUnit.MILLISECONDS.sleep(10);
                        held.get().release();
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(Timing.scaledMillis(60_000), TimeUnit.MILLISECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return store.log.toString();
    }

    /** The runs of hand-offs between releases, without the last (cut short by the end of the run). */
    private static List<String> turns(String log) {
        String[] parts = log.split("R", -1);
        List<String> turns = new ArrayList<>();
        for (int i = 0; i < parts.length - 1; i++) {
            turns.add(parts[i]);
        }
        return turns;
    }

    /** The in-memory store (atomic hand-off) that logs its hand-offs and releases and says whether others wait. */
    private static final class LoggingStore extends InMemoryLeaseStore {
        final StringBuffer log = new StringBuffer();
        private final boolean othersWaiting;

        LoggingStore(boolean othersWaiting) {
            this.othersWaiting = othersWaiting;
        }

        @Override
        public boolean atomicHandOff() {
            return true;
        }

        @Override
        public CompletableFuture<AcquireResult> handOffKeepingExpiry(String key, String from, String to, Duration ttl) {
            log.append('K');
            return super.handOff(key, from, to, ttl, false);
        }

        @Override
        public CompletableFuture<AcquireResult> handOff(
                String key, String from, String to, Duration ttl, boolean token) {
            log.append('H');
            return super.handOff(key, from, to, ttl, token)
                    .thenApply(r -> r instanceof AcquireResult.Acquired a
                            ? new AcquireResult.Acquired(a.fencingToken(), othersWaiting)
                            : r);
        }

        @Override
        public CompletableFuture<Boolean> release(String key, String owner) {
            log.append('R');
            return super.release(key, owner);
        }
    }
}
