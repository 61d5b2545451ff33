package dev.tenure.boot;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.scheduling.annotation.Async;
import org.springframework.transaction.interceptor.TransactionAspectSupport;
import org.springframework.util.ReflectionUtils;

/**
 * Checks every bean with {@link Coordinated} methods as it is created, so nothing runs uncoordinated by mistake: each
 * method follows the rules ({@link Coordinated}) and is not {@code @Async}, the bean is proxied with the
 * {@link CoordinatedAdvisor}, and that advisor comes before (outside) any transaction advisor on it. Any failure stops
 * the application with a {@link TenureConfigurationException} naming the method. Runs after the auto-proxy creator (its
 * order is the lowest).
 */
public final class CoordinatedMethodsCheck implements BeanPostProcessor, Ordered {

    private final ObjectProvider<CoordinatedAdvisor> advisor;
    /** Classes known to have no {@code @Coordinated} method, so prototype beans are not scanned again. */
    private final Set<Class<?>> without = ConcurrentHashMap.newKeySet();

    /** @param advisor Tenure's advisor, looked up at the first bean with a {@code @Coordinated} method */
    public CoordinatedMethodsCheck(ObjectProvider<CoordinatedAdvisor> advisor) {
        this.advisor = advisor;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        if (without.contains(type) || !AnnotationUtils.isCandidateClass(type, Coordinated.class)) {
            return bean;
        }
        Set<Method> coordinated = MethodIntrospector.selectMethods(
                type, (ReflectionUtils.MethodFilter) m -> AnnotatedElementUtils.hasAnnotation(m, Coordinated.class));
        if (coordinated.isEmpty()) {
            without.add(type);
            return bean;
        }
        CoordinatedAdvisor ours = advisor.getObject();
        coordinated.forEach(ours::check);
        coordinated.forEach(m -> refuseAsync(type, m));
        coordinated.forEach(m -> ours.found(bean, AopUtils.selectInvocableMethod(m, bean.getClass())));
        String where =
                type.getSimpleName() + "." + coordinated.iterator().next().getName();
        List<Advisor> chain = bean instanceof Advised a ? Arrays.asList(a.getAdvisors()) : List.of();
        int index = chain.indexOf(ours);
        if (index < 0) {
            throw new TenureConfigurationException(
                    where,
                    "bean '" + beanName + "' is not proxied with Tenure's "
                            + "advisor, so its @Coordinated methods would run uncoordinated",
                    "Do not exclude Spring's auto-proxying (spring.aop.auto) for it, and do not make the class final.");
        }
        for (int i = 0; i < index; i++) {
            if (chain.get(i).getAdvice() instanceof TransactionAspectSupport) {
                throw new TenureConfigurationException(
                        where,
                        "Tenure's advisor (order " + ours.getOrder()
                                + ") runs inside the transaction advisor, so the lease would be released before the commit",
                        "Set tenure.scheduling.advisor-order lower than the transaction advisor's order ("
                                + (chain.get(i) instanceof Ordered o ? o.getOrder() : "unknown") + ").");
            }
        }
        return bean;
    }

    /**
     * Refuses {@code @Async} on a coordinated method or its class. The body would run on another thread after the call
     * returned: the fire would be recorded as completed before it ran, uncoordinated, and a catch-up would run the
     * current slot instead of the missed fire.
     */
    private static void refuseAsync(Class<?> type, Method method) {
        if (AnnotatedElementUtils.hasAnnotation(method, Async.class)
                || AnnotatedElementUtils.hasAnnotation(type, Async.class)) {
            String where = type.getSimpleName() + "." + method.getName();
            throw new TenureConfigurationException(
                    where,
                    "a @Coordinated method is @Async (on the method or its class). Its body would run on another "
                            + "thread, outside its fire: the fire would be recorded before the body ran, and a catch-up "
                            + "would run the current slot instead of the missed fire",
                    "Drop @Async from " + where + " and its class. If the work must run on another thread, hand it to "
                            + "an executor inside the method and wait for it there.");
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
