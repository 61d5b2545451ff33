package dev.tenure.boot;

import dev.tenure.JobContext;
import dev.tenure.JobCoordinator;
import dev.tenure.LeaseLostException;
import dev.tenure.RunMdc;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.TenureException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;

/**
 * Runs a {@link Coordinated} method as one fire of its job: the coordinator takes the leases and the fire's claim, the
 * method runs with its run as {@link JobContext#current()}, and the outcome is recorded and the leases released after the
 * method (and any transaction advice inside this one) returned. The method's log lines, and Tenure's about its fire,
 * carry the run's {@link RunMdc} keys; catch-ups go through here too. Thread-safe.
 */
final class CoordinatedInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(Coordinated.class);
    /** How a run's observations name this integration. */
    static final String INTEGRATION = "scheduled";
    /** The fire key of a catch-up: the next coordinated call on this thread runs that fire instead of the current slot. */
    private static final ThreadLocal<String> CATCH_UP = new ThreadLocal<>();

    private final CoordinatedMethods methods;
    private final Supplier<JobCoordinator> coordinator;
    private final Supplier<List<CoordinatedRunListener>> listeners;
    private final Clock clock;

    CoordinatedInterceptor(
            CoordinatedMethods methods,
            Supplier<JobCoordinator> coordinator,
            Supplier<List<CoordinatedRunListener>> listeners,
            Clock clock) {
        this.methods = methods;
        this.coordinator = coordinator;
        this.listeners = listeners;
        this.clock = clock;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        CoordinatedMethod m = methods.resolve(mostSpecific(invocation));
        String caughtUp = CATCH_UP.get();
        CATCH_UP.remove(); // a coordinated call inside the method is a fire of its own
        String fireKey = caughtUp != null ? caughtUp : m.fireKey(clock.instant());
        Call call = new Call();
        RunOutcome<Object> o;
        JobCoordinator c = coordinator.get();
        if (c.isClosed()) {
            return shuttingDown(m, fireKey);
        }
        try {
            o = c.run(
                    m.jobKey(),
                    fireKey,
                    caughtUp != null ? catchUpPolicy(m) : m.policy(),
                    m.options(),
                    INTEGRATION,
                    run -> call.proceed(invocation, run));
        } catch (IllegalStateException e) {
            if (!call.ran && c.isClosed()) {
                return shuttingDown(m, fireKey); // closed between the check and the claim
            }
            throw e;
        } catch (TenureException e) {
            tell(l -> l.faulted(m.jobKey(), fireKey, e));
            if (!call.ran) {
                log.warn(
                        "{}: fire {} skipped here, Tenure could not coordinate it: {}",
                        m.jobKey(),
                        fireKey,
                        e.getMessage());
                return null;
            }
            log.warn(
                    "{}: fire {} ran here ({}), but its outcome could not be recorded; unless the method completed "
                            + "the fire in its own transaction, the next claim runs it again",
                    m.jobKey(),
                    fireKey,
                    call.thrown == null ? "the method returned" : "the method threw " + call.thrown,
                    e);
            if (call.thrown != null) {
                throw call.thrown; // as without Tenure: the method's own exception reaches the scheduler
            }
            return null;
        }
        try (RunMdc.Scope log = ranHere(o)
                ? RunMdc.open(
                        o.jobKey(),
                        o.fireKey(),
                        o.epoch(),
                        o.owner(),
                        coordinator.get().nodeName())
                : null) {
            tell(l -> l.finished(o));
            return report(m, o);
        }
    }

    /**
     * A fire that Spring's scheduler still started while this instance shuts down, after Tenure closed: not run here, one
     * INFO line, no exception (it would reach Spring's scheduler as an ERROR with a stack trace). Another instance runs
     * it, or the sweeper catches it up or records it MISSED.
     */
    private @Nullable Object shuttingDown(CoordinatedMethod m, String fireKey) {
        log.info(
                "{}: fire {} not started here: this instance is shutting down (Tenure is closed); another instance runs "
                        + "it, or the sweeper catches it up or records it MISSED",
                m.jobKey(),
                fireKey);
        return null;
    }

    /** True if this node ran the fire: then the lines about its outcome carry the run's MDC keys, as the run's did. */
    private static boolean ranHere(RunOutcome<?> o) {
        return o.status() == RunOutcome.Status.EXECUTED
                || o.status() == RunOutcome.Status.FAILED
                || o.status() == RunOutcome.Status.LEASE_LOST;
    }

    /**
     * A catch-up waits up to one lease TTL for the job: it runs on Tenure's catch-up thread, not the scheduler's, and a
     * regular fire that holds the job for a moment must not send it back to the sweeper.
     */
    private static RunPolicy catchUpPolicy(CoordinatedMethod m) {
        return m.policy().maxWait().compareTo(m.options().ttl()) >= 0
                ? m.policy()
                : RunPolicy.waitUpTo(m.options().ttl());
    }

    /** Calls {@code method} on {@code bean} (its proxy) as a run of fire {@code fireKey}: how a catch-up reaches it. */
    static void catchUp(Object bean, Method method, String fireKey) throws Exception {
        CATCH_UP.set(fireKey);
        try {
            method.invoke(bean);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            throw e;
        } finally {
            CATCH_UP.remove();
        }
    }

    /** One call of the method inside its run: whether it ran, and what it threw. */
    private final class Call {
        private volatile boolean ran;
        private volatile Throwable thrown;

        Object proceed(MethodInvocation invocation, JobContext run) throws Exception {
            tell(l -> l.claimed(run));
            ran = true; // JobCoordinator.run has made run JobContext.current() on this thread
            try {
                return invocation.proceed();
            } catch (Exception | Error e) {
                thrown = e;
                throw e;
            } catch (Throwable t) {
                thrown = t;
                throw new UndeclaredThrowableException(t);
            }
        }
    }

    private static Object report(CoordinatedMethod m, RunOutcome<Object> o) throws Throwable {
        switch (o.status()) {
            case FAILED -> {
                if (o.error() != null) {
                    throw o.error();
                }
            }
            case LEASE_LOST -> {
                if (abandonedForShutdown(o.error())) {
                    // this node's shutdown cut the run short, and JobCoordinator.close said so in one INFO line
                    log.debug("{}: fire {} ended by this node's shutdown", m.jobKey(), o.fireKey(), o.error());
                    return null;
                }
                log.warn(
                        "{}: fire {} was fenced off: {}",
                        m.jobKey(),
                        o.fireKey(),
                        o.error() == null
                                ? "its lease of epoch " + o.epoch() + " ended while it ran; nothing it wrote in its "
                                        + "fenced transactions was committed"
                                : o.error().getMessage());
                log.debug("{}: fire {} was fenced off; the run's exceptions", m.jobKey(), o.fireKey(), o.error());
            }
            case EXECUTED -> {
                if (o.error() != null) {
                    log.warn("{}: fire {} completed, then threw", m.jobKey(), o.fireKey(), o.error());
                }
                log.debug("{}: fire {} executed under epoch {}", m.jobKey(), o.fireKey(), o.epoch());
            }
            default -> log.debug("{}: fire {} not run here: {}", m.jobKey(), o.fireKey(), o.status());
        }
        return null;
    }

    /** True if the run was abandoned by this node's {@link JobCoordinator#close} after its drain timeout. */
    private static boolean abandonedForShutdown(Throwable error) {
        return error instanceof LeaseLostException
                && String.valueOf(error.getMessage()).contains("was abandoned: " + JobCoordinator.SHUTDOWN);
    }

    private void tell(Consumer<CoordinatedRunListener> event) {
        for (CoordinatedRunListener l : listeners.get()) {
            try {
                event.accept(l);
            } catch (RuntimeException e) {
                log.warn("CoordinatedRunListener {} threw; ignored", l, e);
            }
        }
    }

    private static Method mostSpecific(MethodInvocation invocation) {
        Object target = invocation.getThis();
        return target == null
                ? invocation.getMethod()
                : AopUtils.getMostSpecificMethod(invocation.getMethod(), AopUtils.getTargetClass(target));
    }
}
