package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.Ticker;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SettableTickerTest {

    @Test
    void advance_fromStart_movesByDuration() {
        SettableTicker ticker = new SettableTicker(100);
        Ticker asTicker = ticker;
        assertThat(ticker.advance(Duration.ofMillis(2))).isEqualTo(2_000_100L);
        assertThat(asTicker.nanoTime()).isEqualTo(2_000_100L);
    }

    @Test
    void set_anyValue_isReturnedVerbatim() {
        SettableTicker ticker = new SettableTicker();
        ticker.set(42);
        assertThat(ticker.nanoTime()).isEqualTo(42);
        ticker.set(-7);
        assertThat(ticker.nanoTime()).isEqualTo(-7);
    }

    @Test
    void advance_negative_throws() {
        assertThatThrownBy(() -> new SettableTicker().advance(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void advance_concurrentThreads_losesNoStep() throws InterruptedException {
        SettableTicker ticker = new SettableTicker();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int i = 0; i < 4_000; i++) {
            pool.execute(() -> ticker.advance(Duration.ofNanos(1)));
        }
        pool.shutdown();
        assertThat(pool.awaitTermination(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS))
                .isTrue();
        assertThat(ticker.nanoTime()).isEqualTo(4_000);
    }
}
