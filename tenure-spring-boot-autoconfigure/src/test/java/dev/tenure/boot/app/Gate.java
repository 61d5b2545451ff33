package dev.tenure.boot.app;

import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Holds a running method at one point until the test lets it go on. */
public final class Gate {

    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch open = new CountDownLatch(1);

    /** Called by the method: says it got here, then waits (at most a minute) for {@link #open()}. */
    public void pass() throws InterruptedException {
        reached.countDown();
        if (!open.await(Timing.scaledMillis(60_000), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the test never opened the gate");
        }
    }

    /** A method that may throw, e.g. a test bean's {@code settle}. */
    @FunctionalInterface
    public interface Call {
        void call() throws Exception;
    }

    /** Calls {@code method} on a thread of its own and returns that thread once the method reached this gate. */
    public Thread callUntilReached(Call method, Duration timeout) throws InterruptedException {
        Thread caller = new Thread(() -> {
            try {
                method.call();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        caller.start();
        awaitReached(timeout);
        return caller;
    }

    /** Waits for the method to reach the gate. */
    public void awaitReached(Duration timeout) throws InterruptedException {
        if (!reached.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the method did not reach the gate within " + timeout);
        }
    }

    public void open() {
        open.countDown();
    }
}
