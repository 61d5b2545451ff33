package dev.tenure.boot;

import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunPolicy;
import dev.tenure.spi.LeaseKeys;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.util.StringValueResolver;

/**
 * Reads {@link Coordinated} methods once each and checks every rule, so a method that cannot be coordinated stops the
 * application at start-up with a {@link TenureConfigurationException} naming it. Thread-safe.
 */
final class CoordinatedMethods {

    private static final Logger log = LoggerFactory.getLogger(Coordinated.class);

    private final StringValueResolver resolver;
    private final Supplier<LeaseOptions> defaults;
    private final Map<Method, CoordinatedMethod> methods = new ConcurrentHashMap<>();

    CoordinatedMethods(StringValueResolver resolver, Supplier<LeaseOptions> defaults) {
        this.resolver = resolver;
        this.defaults = defaults;
    }

    /** The coordinated method {@code method} (its most specific, annotated declaration). */
    CoordinatedMethod resolve(Method method) {
        return methods.computeIfAbsent(method, this::read);
    }

    private CoordinatedMethod read(Method method) {
        String where = method.getDeclaringClass().getSimpleName() + "." + method.getName();
        Coordinated c = AnnotatedElementUtils.findMergedAnnotation(method, Coordinated.class);
        if (c == null) {
            throw new IllegalArgumentException(where + " has no @Coordinated");
        }
        Set<Scheduled> schedules =
                AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class, Schedules.class);
        if (schedules.size() != 1) {
            throw new TenureConfigurationException(
                    where,
                    "@Coordinated needs exactly one @Scheduled (found " + schedules.size()
                            + "): the slot of a fire is read from it",
                    "Put one @Scheduled with cron or fixedRate on " + where + ".");
        }
        checkShape(method, where);
        Scheduled scheduled = schedules.iterator().next();
        if (!scheduled.cron().isEmpty() && scheduled.zone().isEmpty()) {
            log.info(
                    "{}: its cron uses this JVM's time zone ({}); every instance must run in that zone, or give "
                            + "@Scheduled a zone",
                    where,
                    java.time.ZoneId.systemDefault());
        }
        String jobKey = jobKey(c, method, where);
        Duration ttl = duration(c.ttl(), "ttl", where);
        Duration maxWait = duration(c.maxWait(), "maxWait", where);
        return new CoordinatedMethod(
                where,
                jobKey,
                maxWait == null ? RunPolicy.skipFire() : RunPolicy.waitUpTo(maxWait),
                options(ttl, where),
                ScheduleSlots.of(scheduled, resolver, where),
                ScheduleSlots.schedule(scheduled, resolver, where),
                missedFires(c, where));
    }

    private MissedFirePolicy.Action missedFires(Coordinated c, String where) {
        String value = c.missedFires().isEmpty() ? "" : resolver.resolveStringValue(c.missedFires());
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_');
        for (MissedFirePolicy.Action a : MissedFirePolicy.Action.values()) {
            if (a.name().equals(v)) {
                return a;
            }
        }
        throw new TenureConfigurationException(
                where,
                "bad @Coordinated(missedFires = \"" + value + "\")",
                "Give missedFires one of catch-up, skip or alert-only, or leave it out for tenure.missed-fires.policy.");
    }

    private static void checkShape(Method method, String where) {
        int m = method.getModifiers();
        String problem = method.getReturnType() != void.class
                ? "returns " + method.getReturnType().getSimpleName() + " (a skipped fire has no value to return)"
                : method.getParameterCount() != 0
                        ? "takes arguments (read the run with JobContext.current())"
                        : !Modifier.isPublic(m) || Modifier.isStatic(m) || Modifier.isFinal(m)
                                ? "is not a public, non-static, non-final method, so Spring's proxy cannot coordinate it"
                                : null;
        if (problem != null) {
            throw new TenureConfigurationException(
                    where,
                    "a @Coordinated method " + problem,
                    "Make " + where + " a public void method without arguments, not static or final.");
        }
    }

    private String jobKey(Coordinated c, Method method, String where) {
        String key = c.value().isEmpty()
                ? method.getDeclaringClass().getName() + "." + method.getName()
                : resolver.resolveStringValue(c.value());
        try {
            return LeaseKeys.validate(key);
        } catch (IllegalArgumentException e) {
            throw new TenureConfigurationException(
                    where,
                    "bad job key: " + e.getMessage(),
                    "Give @Coordinated of " + where
                            + " a job key of 1 to 200 characters without whitespace or braces.");
        }
    }

    private Duration duration(String value, String attribute, String where) {
        String resolved = value.isEmpty() ? "" : resolver.resolveStringValue(value);
        if (resolved == null || resolved.isBlank()) {
            return null;
        }
        try {
            Duration d = DurationStyle.detectAndParse(resolved.trim());
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("must be positive");
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw new TenureConfigurationException(
                    where,
                    "bad @Coordinated(" + attribute + " = \"" + value + "\"): " + e.getMessage(),
                    "Give " + attribute + " a positive duration such as \"10s\" or \"PT10S\".");
        }
    }

    private LeaseOptions options(Duration ttl, String where) {
        try {
            return ttl == null ? defaults.get() : defaults.get().withTtl(ttl);
        } catch (IllegalArgumentException e) {
            throw new TenureConfigurationException(
                    where,
                    "bad @Coordinated(ttl): " + e.getMessage(),
                    "Give ttl a duration of 10 ms or more, longer than tenure.lease.renew-every if that is set.");
        }
    }
}
