package dev.tenure.boot;

import dev.tenure.MissedFirePolicy;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;

/**
 * Records the schedule of every {@link Coordinated} method in Tenure's ledger once the application's singletons exist
 * (and of methods of beans created later, as they are created), so that Tenure's sweeper accounts for every fire of
 * them: a catch-up calls the method through its proxy, on Tenure's catch-up thread, as a run of the missed fire. A
 * method with a disabled cron ({@code "-"}) has no schedule and is not recorded.
 *
 * <p>An application context that is stopped ({@code ConfigurableApplicationContext.stop()}, which pauses Spring's
 * scheduler) has its coordinated jobs paused: while this instance sweeps, their fires are not due, the ledger records a
 * PAUSED span, and none is caught up. A stop that is part of closing the context is no pause. Thread-safe.
 */
public final class CoordinatedSchedules
        implements SmartInitializingSingleton, SmartLifecycle, ApplicationListener<ContextClosedEvent> {

    private static final Logger LOG = LoggerFactory.getLogger(Coordinated.class);

    private final ObjectProvider<CoordinatedAdvisor> advisor;
    private final Supplier<Tenure> tenure;
    private final Function<MissedFirePolicy.Action, MissedFirePolicy> policies;
    private volatile boolean running;
    private volatile boolean stopped;
    private volatile boolean closing;

    /**
     * @param policies the policy of a method whose {@code @Coordinated(missedFires)} names an action (null: the
     *                 application's default)
     */
    public CoordinatedSchedules(
            ObjectProvider<CoordinatedAdvisor> advisor,
            Supplier<Tenure> tenure,
            Function<MissedFirePolicy.Action, MissedFirePolicy> policies) {
        this.advisor = advisor;
        this.tenure = tenure;
        this.policies = policies;
    }

    @Override
    public void afterSingletonsInstantiated() {
        CoordinatedAdvisor a = advisor.getIfAvailable();
        if (a != null) {
            a.onFound(this::register);
            if (!tenure.get().scheduledJobs().isEmpty()) {
                LOG.info(tenure.get().scheduledJobsSummary());
            }
        }
    }

    private void register(CoordinatedAdvisor.Found found) {
        CoordinatedMethod m = found.coordinated();
        m.schedule()
                .ifPresent(schedule -> tenure.get()
                        .register(new ScheduledJob(
                                m.jobKey(),
                                schedule,
                                policies.apply(m.missedFires()),
                                fireKey -> CoordinatedInterceptor.catchUp(found.bean(), found.method(), fireKey),
                                "scheduled",
                                this::pausedBecause)));
    }

    private Optional<String> pausedBecause() {
        return stopped && !closing
                ? Optional.of("the application context of this instance is stopped, and with it Spring's scheduler")
                : Optional.empty();
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        closing = true; // published before the lifecycle beans stop: that stop is a shutdown, not a pause
    }

    @Override
    public void start() {
        running = true;
        stopped = false;
    }

    @Override
    public void stop() {
        running = false;
        stopped = true;
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
