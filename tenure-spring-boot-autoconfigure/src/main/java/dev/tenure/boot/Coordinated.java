package dev.tenure.boot;

import dev.tenure.JobContext;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a {@code @Scheduled} method run once per schedule slot across all instances of the application, through
 * Tenure's {@link dev.tenure.JobCoordinator}:
 * <pre>{@code
 * @Scheduled(cron = "0 0 2 * * *", zone = "UTC")
 * @Coordinated(value = "nightly-settlement", ttl = "2m")
 * public void settle() throws SQLException {
 *     JobContext run = JobContext.current();                          // this fire's epoch, fence and completion
 *     run.completeInTransaction(dataSource, c -> settleDay(c, run.fireKey()));
 * }
 * }</pre>
 *
 * <p><b>The fire key is the slot</b>, computed the same way on every instance: for {@code cron}, the slot's time from the
 * expression and its {@code zone} (the latest cron time at or before the fire); for {@code fixedRate}, the aligned slot
 * {@code floor(now / rate) * rate}. A fire up to 100 ms early counts for the slot it was scheduled for. It is an
 * ISO-8601 instant such as {@code 2026-12-02T02:00:00Z}. {@code fixedDelay} has no slot that instances share, and is
 * refused at start-up. Give cron schedules an explicit {@code zone}, or run every instance in one time zone.
 *
 * <p><b>Per fire</b>, only one instance runs the method: the others skip the fire (or, with {@link #maxWait()}, wait
 * for the holder), and a fire that completed is never run again. Write through {@link JobContext#current()}:
 * {@code completeInTransaction(dataSource, work)} fences, runs the work and completes the fire in one transaction (a
 * stale holder rolls back). With Spring's {@code @Transactional} on the method, the fence and the completion join that
 * transaction, and the lease is taken before it begins and released after it commits.
 *
 * <p>The method must be {@code void}, take no arguments (Spring's rule for {@code @Scheduled}), and be public on a
 * bean that Spring proxies (not final, not private, not static). Neither it nor its class may be {@code @Async}: the
 * body would run outside its fire. A method breaking a rule stops the application at start-up with a
 * {@link TenureConfigurationException} naming it. When the method throws, the exception reaches
 * Spring's scheduler as without Tenure (the fire is recorded FAILED and runs again on the next claim); faults of
 * Tenure's stores skip the fire (fail closed) with a warning. A fault after the method ran (its outcome could not be
 * recorded) is a warning that says so, and the method's own exception, if any, still reaches the scheduler.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Coordinated {

    /** The job key (at most 200 characters, no whitespace or braces); default {@code <class name>.<method name>}. */
    String value() default "";

    /**
     * The lease TTL of this job's runs, e.g. {@code "2s"}, {@code "5m"} or {@code "PT30S"}; placeholders allowed.
     * Default: {@code tenure.lease.ttl}. A crashed or frozen holder blocks the job this long.
     */
    String ttl() default "";

    /**
     * How long a fire waits for the current holder before giving up, e.g. {@code "500ms"}; default: it skips the fire at
     * once. Keep it shorter than the schedule's period.
     */
    String maxWait() default "";

    /**
     * What Tenure does with a fire of this method that was due and did not complete (nobody ran it, or its holder
     * died, froze or shut down): {@code "catch-up"} (run it now on a live instance, up to
     * {@code tenure.missed-fires.max-catch-ups} of the newest), {@code "skip"} (record it MISSED) or
     * {@code "alert-only"}; placeholders allowed. Default: {@code tenure.missed-fires.policy} (catch-up). A catch-up
     * calls this method on Tenure's catch-up thread, with {@link JobContext#current()} bound to the missed fire.
     */
    String missedFires() default "";
}
