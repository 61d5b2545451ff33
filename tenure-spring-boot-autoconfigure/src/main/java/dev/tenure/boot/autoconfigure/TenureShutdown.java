package dev.tenure.boot.autoconfigure;

import dev.tenure.Tenure;
import java.time.Duration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.scheduling.concurrent.ExecutorConfigurationSupport;

/**
 * Closes the application's {@link Tenure} in the shutdown phase after the schedulers that run its jobs, so that no
 * lease outlives the application. Spring stops higher phases first: Quartz's {@code SchedulerFactoryBean}
 * ({@link SmartLifecycle#DEFAULT_PHASE}) and the task scheduler of {@code @Scheduled} methods
 * ({@link ExecutorConfigurationSupport#DEFAULT_PHASE}, which waits for its running tasks) stop before {@link #PHASE}.
 * Then {@link Tenure#close(Duration)} waits for the runs still going until the shutdown phase timeout
 * ({@code spring.lifecycle.timeout-per-shutdown-phase}, 30 s by default), counted from the start of the shutdown,
 * abandons the rest (ABANDONED, reason shutdown), releases both leases of every run and only then closes its clients.
 * The {@code Tenure} bean's own {@code close()} at destruction then has nothing left to do. A stop that is no shutdown
 * ({@code ConfigurableApplicationContext.stop()}, which pauses Spring's scheduler) leaves Tenure running: this instance's
 * coordinated jobs then answer paused until {@code start()} ({@link dev.tenure.boot.CoordinatedSchedules}). Thread-safe.
 */
final class TenureShutdown implements SmartLifecycle, ApplicationListener<ContextClosedEvent> {

    /** After the task scheduler's phase (and Quartz's), before the phase-0 beans. */
    static final int PHASE = ExecutorConfigurationSupport.DEFAULT_PHASE - 1024;

    private final Tenure tenure;
    private final Duration drain;
    private final ApplicationContext context;
    private volatile long shutdownBegan;
    private volatile boolean shuttingDown;
    private volatile boolean running;

    /** @param drain how long runs may take, from the start of the shutdown: the shutdown phase timeout */
    TenureShutdown(Tenure tenure, Duration drain, ApplicationContext context) {
        this.tenure = tenure;
        this.drain = drain;
        this.context = context;
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() == context && !shuttingDown) {
            shutdownBegan = System.nanoTime();
            shuttingDown = true;
        }
    }

    @Override
    public void start() {
        running = true;
    }

    /** In a shutdown, closes Tenure with what is left of the drain; a stop without a close is a pause. */
    @Override
    public void stop() {
        running = false;
        if (!shuttingDown) {
            return;
        }
        Duration spent = shuttingDown ? Duration.ofNanos(System.nanoTime() - shutdownBegan) : Duration.ZERO;
        Duration left = drain.minus(spent);
        tenure.close(left.isNegative() ? Duration.ZERO : left);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
