package dev.tenure.boot;

import dev.tenure.MissedFirePolicy;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import java.lang.reflect.Method;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ApplicationContextEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.ContextRefreshedEvent;
import org.springframework.scheduling.config.ScheduledTask;
import org.springframework.scheduling.config.ScheduledTaskHolder;
import org.springframework.scheduling.support.ScheduledMethodRunnable;

/**
 * Records the schedule of every {@link Coordinated} method in Tenure's ledger once the application's singletons exist
 * (and of methods of beans created later, as they are created), so that Tenure's sweeper accounts for every fire of
 * them: a catch-up calls the method through its proxy, on Tenure's catch-up thread, as a run of the missed fire. A
 * method with a disabled cron ({@code "-"}) has no schedule and is not recorded.
 *
 * <p>Each schedule is accounted for from the first fire that Spring's scheduler fires, not from the moment its bean
 * exists: the methods found while the context starts are registered when it has been refreshed (Spring's scheduler
 * schedules its tasks then), with the next execution of their scheduled task, so that a slot that passed while the
 * context was still starting is not due (it would be recorded MISSED, or caught up late).
 *
 * <p>An application context that is stopped ({@code ConfigurableApplicationContext.stop()}, which pauses Spring's
 * scheduler) has its coordinated jobs paused: while this instance sweeps, their fires are not due, the ledger records a
 * PAUSED span, and none is caught up. A stop that is part of closing the context is no pause. Thread-safe.
 */
public final class CoordinatedSchedules
        implements SmartInitializingSingleton,
                SmartLifecycle,
                ApplicationListener<ApplicationContextEvent>,
                ApplicationContextAware {

    private static final Logger LOG = LoggerFactory.getLogger(Coordinated.class);

    private final ObjectProvider<CoordinatedAdvisor> advisor;
    private final Supplier<Tenure> tenure;
    private final Function<MissedFirePolicy.Action, MissedFirePolicy> policies;
    private volatile boolean running;
    private volatile boolean stopped;
    private volatile boolean closing;
    private @Nullable ApplicationContext context;
    /** Methods found before the context was refreshed (guarded by itself); null once it was. */
    private @Nullable List<CoordinatedAdvisor.Found> early = new ArrayList<>();

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
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    @Override
    public void afterSingletonsInstantiated() {
        CoordinatedAdvisor a = advisor.getIfAvailable();
        if (a != null) {
            a.onFound(this::found);
        }
    }

    private void found(CoordinatedAdvisor.Found found) {
        List<CoordinatedAdvisor.Found> waiting = early;
        if (waiting != null) {
            synchronized (waiting) {
                if (early != null) {
                    waiting.add(found);
                    return;
                }
            }
        }
        register(found);
    }

    /** Registers the methods found while the context started, now that Spring's scheduler has its tasks. */
    private void refreshed() {
        List<CoordinatedAdvisor.Found> waiting = early;
        if (waiting == null) {
            return;
        }
        List<CoordinatedAdvisor.Found> now;
        synchronized (waiting) {
            now = List.copyOf(waiting);
            early = null;
        }
        now.forEach(this::register);
        if (!now.isEmpty() && !tenure.get().scheduledJobs().isEmpty()) {
            LOG.info(tenure.get().scheduledJobsSummary());
        }
    }

    private void register(CoordinatedAdvisor.Found found) {
        CoordinatedMethod m = found.coordinated();
        m.schedule().ifPresent(schedule -> {
            ScheduledJob job = new ScheduledJob(
                    m.jobKey(),
                    schedule,
                    policies.apply(m.missedFires()),
                    fireKey -> CoordinatedInterceptor.catchUp(found.bean(), found.method(), fireKey),
                    "scheduled",
                    this::pausedBecause);
            Instant first = firstExecution(found);
            if (first == null) {
                // no task of Spring's scheduler for it (yet): the next slot from now is the first it can fire
                first = schedule.nextAfter(Instant.now()).orElse(null);
            }
            if (first == null) {
                tenure.get().register(job);
            } else {
                tenure.get().register(job, first);
            }
        });
    }

    /** The next execution of the scheduled task of {@code found}'s method, as Spring's scheduler has it. */
    private @Nullable Instant firstExecution(CoordinatedAdvisor.Found found) {
        ApplicationContext c = context;
        if (c == null) {
            return null;
        }
        Class<?> type = AopUtils.getTargetClass(found.bean());
        Method method = found.method();
        Instant first = null;
        for (ScheduledTaskHolder holder :
                c.getBeanProvider(ScheduledTaskHolder.class).orderedStream().toList()) {
            for (ScheduledTask task : holder.getScheduledTasks()) {
                if (task.getTask().getRunnable() instanceof ScheduledMethodRunnable r
                        && r.getMethod().getName().equals(method.getName())
                        && Arrays.equals(r.getMethod().getParameterTypes(), method.getParameterTypes())
                        && (r.getTarget() == found.bean() || AopUtils.getTargetClass(r.getTarget()) == type)) {
                    Instant next = task.nextExecution();
                    if (next != null && (first == null || next.isBefore(first))) {
                        first = next;
                    }
                }
            }
        }
        return first;
    }

    private Optional<String> pausedBecause() {
        return stopped && !closing
                ? Optional.of("the application context of this instance is stopped, and with it Spring's scheduler")
                : Optional.empty();
    }

    @Override
    public void onApplicationEvent(ApplicationContextEvent event) {
        if (event.getApplicationContext() != context && context != null) {
            return; // a child context's event (the management context, say)
        }
        if (event instanceof ContextRefreshedEvent) {
            refreshed();
        } else if (event instanceof ContextClosedEvent) {
            closing = true; // published before the lifecycle beans stop: that stop is a shutdown, not a pause
        }
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
