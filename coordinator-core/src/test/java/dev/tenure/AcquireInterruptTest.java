package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** What {@link Leases#tryAcquire} and {@link Leases#acquire} promise about interrupts and store faults, zero wait or not. */
class AcquireInterruptTest {

    private static final Duration NO_WAIT = Duration.ZERO;
    private static final Duration SOME_WAIT = Duration.ofSeconds(5);

    private final FaultyLeaseStore inner = new FaultyLeaseStore(Ticker.system());
    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private Leases leases;

    @AfterEach
    void close() {
        pool.shutdownNow();
        if (leases != null) {
            leases.close();
        }
    }

    private Leases over(LeaseStore store) {
        leases = Leases.builder(store).build();
        return leases;
    }

    /** Runs {@code call} with the thread's interrupt flag set; returns its result and whether the flag was still set. */
    private static <T> Interrupted<T> interrupted(Supplier<T> call) {
        Thread.currentThread().interrupt();
        try {
            T result = call.get();
            return new Interrupted<>(result, Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }

    private record Interrupted<T>(T result, boolean flagKept) {}

    @Nested
    class InterruptedBeforeSending {

        @Test
        void tryAcquire_interrupted_isEmptyKeepsFlagAndSendsNothing() {
            Leases l = over(inner);
            Interrupted<Optional<Lease>> r = interrupted(() -> l.tryAcquire("i"));
            assertThat(r.result()).isEmpty();
            assertThat(r.flagKept()).isTrue();
            assertThat(inner.calls).hasValue(0);
            assertThat(l.tryAcquire("i")).isPresent();
        }

        @Test
        void acquireZeroWait_interrupted_isEmptyKeepsFlagAndSendsNothing() {
            Leases l = over(inner);
            Interrupted<Optional<Lease>> r = interrupted(() -> l.acquire("i", NO_WAIT, l.defaults()));
            assertThat(r.result()).isEmpty();
            assertThat(r.flagKept()).isTrue();
            assertThat(inner.calls).hasValue(0);
        }

        @Test
        void acquireWithWait_interrupted_isEmptyKeepsFlagAndSendsNothing() {
            Leases l = over(inner);
            Interrupted<Optional<Lease>> r = interrupted(() -> l.acquire("i", SOME_WAIT, l.defaults()));
            assertThat(r.result()).isEmpty();
            assertThat(r.flagKept()).isTrue();
            assertThat(inner.calls).hasValue(0);
        }

        @Test
        void runLocked_interrupted_doesNotRunTheWork() {
            Leases l = over(inner);
            Interrupted<Optional<String>> r =
                    interrupted(() -> l.runLocked("i", LockPolicy.failFast(), lease -> "ran"));
            assertThat(r.result()).isEmpty();
            assertThat(r.flagKept()).isTrue();
            assertThat(inner.calls).hasValue(0);
        }
    }

    @Nested
    class InterruptedWhileWaiting {

        @Test
        void acquire_interruptedWhileKeyHeld_returnsEmptySoonWithFlagKept() throws Exception {
            Leases l = over(inner);
            Lease holder = l.tryAcquire("w").orElseThrow();
            CountDownLatch started = new CountDownLatch(1);
            Future<Interrupted<Optional<Lease>>> waiting = pool.submit(() -> {
                started.countDown();
                Optional<Lease> got = l.acquire("w", Duration.ofSeconds(30), l.defaults());
                return new Interrupted<>(got, Thread.currentThread().isInterrupted());
            });
            started.await();
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> inner.calls.get() >= 2); // the waiter asked the store
            pool.shutdownNow(); // interrupts the waiter
            Interrupted<Optional<Lease>> r = waiting.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
            assertThat(r.result()).isEmpty();
            assertThat(r.flagKept()).isTrue();
            assertThat(holder.release()).isEqualTo(ReleaseResult.RELEASED);
        }

        /**
         * A release is handing the lease to the parked waiter (one store call) when the waiter is interrupted: the
         * hand-off decides for it, and it waits for that answer without spinning.
         */
        @Test
        void acquire_interruptedWhileAHandOffToItIsInFlight_waitsForItWithoutSpinning() throws Exception {
            CountDownLatch handOffSent = new CountDownLatch(1);
            CountDownLatch answer = new CountDownLatch(1);
            Leases l = over(new DelegatingLeaseStore(inner) {
                @Override
                public CompletableFuture<AcquireResult> handOff(
                        String key, String from, String to, Duration ttl, boolean token) {
                    handOffSent.countDown();
                    return CompletableFuture.supplyAsync(() -> {
                        awaitQuietly(answer);
                        return inner.handOff(key, from, to, ttl, token).join();
                    });
                }
            });
            Lease holder = l.tryAcquire("h").orElseThrow();
            CompletableFuture<Thread> waiterThread = new CompletableFuture<>();
            Future<Interrupted<Optional<Lease>>> waiting = pool.submit(() -> {
                waiterThread.complete(Thread.currentThread());
                Optional<Lease> got = l.acquire("h", Duration.ofSeconds(30), l.defaults());
                return new Interrupted<>(got, Thread.currentThread().isInterrupted());
            });
            Thread waiter = waiterThread.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> parkedWaiting(waiter));
            CompletableFuture<ReleaseResult> released = CompletableFuture.supplyAsync(holder::release);
            assertThat(handOffSent.await(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                    .isTrue();
            waiter.interrupt();
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long cpuBefore = mx.getThreadCpuTime(waiter.getId());
            LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
            long cpuSpent = mx.getThreadCpuTime(waiter.getId()) - cpuBefore;
            answer.countDown();
            assertThat(released.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                    .isEqualTo(ReleaseResult.RELEASED);
            Interrupted<Optional<Lease>> r = waiting.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
            assertThat(r.flagKept()).isTrue();
            assertThat(r.result()).as("the lease handed over").isPresent();
            assertThat(Duration.ofNanos(cpuSpent))
                    .as("CPU the waiter used during the hand-off")
                    .isLessThan(Timing.scaled(Duration.ofMillis(200)));
            r.result().get().release();
        }

        /** The attempt was sent: its outcome is unknown, so it is a fault (with a clean-up), not an empty result. */
        @Test
        void acquireZeroWait_interruptedWhileTheStoreAnswers_throwsOutcomeUnknownKeepsFlagAndCleansUp()
                throws Exception {
            interruptDuringAttempt(NO_WAIT);
        }

        @Test
        void acquireWithWait_interruptedWhileTheStoreAnswers_throwsOutcomeUnknownKeepsFlagAndCleansUp()
                throws Exception {
            interruptDuringAttempt(SOME_WAIT);
        }

        private void interruptDuringAttempt(Duration wait) throws Exception {
            CountDownLatch sent = new CountDownLatch(1);
            List<String> released = new CopyOnWriteArrayList<>();
            Leases l = over(new DelegatingLeaseStore(inner) {
                @Override
                public CompletableFuture<AcquireResult> tryAcquire(
                        String key, String owner, Duration ttl, boolean token) {
                    sent.countDown();
                    return new CompletableFuture<>(); // never answers
                }

                @Override
                public CompletableFuture<Boolean> release(String key, String owner) {
                    released.add(owner);
                    return inner.release(key, owner);
                }
            });
            CompletableFuture<Interrupted<RuntimeException>> outcome = new CompletableFuture<>();
            Thread caller = new Thread(() -> {
                RuntimeException thrown = null;
                try {
                    l.acquire("s", wait, l.defaults());
                } catch (RuntimeException e) {
                    thrown = e;
                }
                outcome.complete(
                        new Interrupted<>(thrown, Thread.currentThread().isInterrupted()));
            });
            caller.start();
            assertThat(sent.await(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                    .isTrue();
            caller.interrupt();
            Interrupted<RuntimeException> r = outcome.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
            assertThat(r.flagKept()).isTrue();
            assertThat(r.result()).isInstanceOf(LeaseOutcomeUnknownException.class);
            LeaseOutcomeUnknownException e = (LeaseOutcomeUnknownException) r.result();
            assertThat(e.key()).isEqualTo("s");
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> released.contains(e.owner()));
        }
    }

    @Nested
    class Faults {

        @Test
        void storeDown_everyPath_throwsOutcomeUnknownNamingTheKey() {
            Leases l = over(inner);
            inner.down.set(true);
            List<Runnable> paths = List.of(
                    () -> l.tryAcquire("f"),
                    () -> l.acquire("f", NO_WAIT, l.defaults()),
                    () -> l.acquire("f", SOME_WAIT, l.defaults()));
            for (Runnable path : paths) {
                assertThatThrownBy(path::run)
                        .isInstanceOf(LeaseOutcomeUnknownException.class)
                        .isInstanceOf(LeaseStoreUnavailableException.class)
                        .hasMessageContaining("'f'");
            }
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
    }

    /** True while {@code t} is parked in the engine's wait for its turn (not inside a store call). */
    static boolean parkedWaiting(Thread t) {
        Object blocker = t == null ? null : LockSupport.getBlocker(t);
        return blocker != null && blocker.getClass().getSimpleName().equals("Waiter");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
