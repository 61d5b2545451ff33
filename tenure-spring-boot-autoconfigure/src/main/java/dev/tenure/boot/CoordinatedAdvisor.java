package dev.tenure.boot;

import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import java.lang.reflect.Method;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.util.StringValueResolver;

/**
 * The advisor that coordinates {@link Coordinated} methods. Its order must be lower than that of Spring's transaction
 * advisor, so that it wraps the transaction: the lease is taken before the transaction begins and released after it
 * commits ({@link CoordinatedMethodsCheck} stops the application otherwise). Infrastructure, created by Tenure's
 * auto-configuration; every dependency is looked up lazily, at the first fire. Thread-safe.
 */
public final class CoordinatedAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, Coordinated.class, true);
    private final transient CoordinatedMethods methods;
    private final transient CoordinatedInterceptor interceptor;
    private final transient IntSupplier order;

    /**
     * @param resolver    resolves placeholders in {@code @Coordinated} and {@code @Scheduled} values
     * @param defaults    the lease options of runs whose annotation gives no TTL
     * @param coordinator the coordinator of the runs
     * @param listeners   told about each fire
     * @param clock       the wall clock a fire's slot is computed from
     * @param order       this advisor's order (lower = further out)
     */
    public CoordinatedAdvisor(
            StringValueResolver resolver,
            Supplier<LeaseOptions> defaults,
            Supplier<JobCoordinator> coordinator,
            Supplier<List<CoordinatedRunListener>> listeners,
            Clock clock,
            IntSupplier order) {
        this.methods = new CoordinatedMethods(resolver, defaults);
        this.interceptor = new CoordinatedInterceptor(methods, coordinator, listeners, clock);
        this.order = order;
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    @Override
    public int getOrder() {
        return order.getAsInt();
    }

    /** Reads and checks a {@code @Coordinated} method, as its first fire would. */
    void check(Method method) {
        methods.resolve(method);
    }

    /** A coordinated method of a bean (its proxy), found at start-up. */
    record Found(Object bean, Method method, CoordinatedMethod coordinated) {}

    private final transient List<Found> found = new ArrayList<>();
    private transient Consumer<Found> onFound;

    /** Checks {@code method} of {@code bean} and hands it to the schedule registration (now, or once it starts). */
    void found(Object bean, Method method) {
        Found f = new Found(bean, method, methods.resolve(method));
        Consumer<Found> sink;
        synchronized (found) {
            sink = onFound;
            if (sink == null) {
                found.add(f);
            }
        }
        if (sink != null) {
            sink.accept(f);
        }
    }

    /** From now on every coordinated method found (those found so far first) goes to {@code sink}. */
    void onFound(Consumer<Found> sink) {
        List<Found> earlier;
        synchronized (found) {
            onFound = sink;
            earlier = List.copyOf(found);
            found.clear();
        }
        earlier.forEach(sink);
    }

    @Override
    public boolean equals(Object other) {
        return this == other;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
