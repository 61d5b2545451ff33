package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AsyncCallsTest {

    @Test
    void hungCall_failsTypedAtTheCallTimeout() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        try (AsyncCalls calls = new AsyncCalls(1, 4, Duration.ofMillis(200))) {
            long started = System.nanoTime();
            CompletableFuture<Object> f = calls.call("claim", "k", () -> {
                try {
                    never.await(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return "late";
            });
            assertThatThrownBy(() -> f.get(Timing.scaledMillis(2000), TimeUnit.MILLISECONDS))
                    .cause()
                    .isInstanceOfSatisfying(LedgerUnavailableException.class, e -> {
                        assertThat(e.key()).isEqualTo("k");
                        assertThat(e.outcomeUnknown()).isTrue();
                    });
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
                    .isBetween(150L, Timing.scaledMillis(1500));
            never.countDown();
        }
    }

    @Test
    void fullQueue_failsAtOnce_andRuntimeFailuresAreTyped() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (AsyncCalls calls = new AsyncCalls(1, 1, Duration.ofSeconds(5))) {
            calls.call("a", "k", () -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 1;
            });
            CompletableFuture<Integer> queued = calls.call("b", "k", () -> 2);
            CompletableFuture<Integer> refused = calls.call("c", "k", () -> 3);
            assertThat(refused).isCompletedExceptionally();
            assertThatThrownBy(refused::join).cause().hasMessageContaining("too many calls waiting");
            release.countDown();
            assertThat(queued.get(Timing.scaledMillis(2000), TimeUnit.MILLISECONDS))
                    .isEqualTo(2);
            CompletableFuture<Integer> broken = calls.call("d", "k", () -> {
                throw new IllegalStateException("driver oddity");
            });
            assertThatThrownBy(() -> broken.get(Timing.scaledMillis(2000), TimeUnit.MILLISECONDS))
                    .cause()
                    .isInstanceOf(LedgerUnavailableException.class)
                    .hasMessageContaining("driver oddity");
        }
    }

    @Test
    void channels_shortStableAndSchemaSpecific() {
        String a = Channels.of("tenure", "settle-" + "x".repeat(190));
        assertThat(a).matches("tenure_[0-9a-f]{24}");
        assertThat(Channels.of("tenure", "settle-" + "x".repeat(190))).isEqualTo(a);
        assertThat(Channels.of("other", "settle-" + "x".repeat(190))).isNotEqualTo(a);
    }
}
