package dev.tenure.batch;

import dev.tenure.integration.ClaimedRun;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.StepExecution;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A {@link JobRepository} whose updates about a guarded job execution (job and step executions, execution contexts)
 * run behind the fence check, in one transaction with it: a former owner that resumes after another
 * process took the job over can no longer overwrite the metadata the new owner wrote (the recovered execution, the
 * restarted one). The update that records a guarded job execution COMPLETED also completes the fire's run in the
 * same transaction, so "the job finished" and "this fire is done" commit together: a crash or a lost lease between
 * the two can no longer make another process run the fire again. Writes about executions this process does not run
 * pass straight through. Thread-safe.
 */
final class FencedJobRepository implements InvocationHandler {

    /** Not the {@code create*} methods: Spring Batch runs them in their own new transactions and refuses an outer one. */
    private static final Set<String> FENCED = Set.of("update", "updateExecutionContext");

    private final JobRepository delegate;
    private final BatchRuns runs;
    private final ChunkFence fence;
    private final TransactionTemplate tx;

    private FencedJobRepository(JobRepository delegate, DataSource dataSource, BatchRuns runs) {
        this.delegate = delegate;
        this.runs = runs;
        this.fence = new ChunkFence(dataSource);
        this.tx = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    }

    static JobRepository wrap(JobRepository delegate, DataSource dataSource, BatchRuns runs) {
        return (JobRepository) Proxy.newProxyInstance(
                JobRepository.class.getClassLoader(),
                new Class<?>[] {JobRepository.class},
                new FencedJobRepository(delegate, dataSource, runs));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return objectMethod(proxy, method, args);
        }
        Optional<ClaimedRun> run = FENCED.contains(method.getName()) ? runOf(args) : Optional.empty();
        if (run.isEmpty()) {
            return call(method, args);
        }
        try {
            return tx.execute(status -> {
                try {
                    fence.check(run.get());
                    Object result = call(method, args);
                    if (completesTheJob(method, args)) {
                        fence.complete(run.get());
                    }
                    return result;
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new Checked(t);
                }
            });
        } catch (Checked e) {
            throw e.getCause();
        }
    }

    /** Carries a checked exception (an SQLException of the fence check) out of the transaction callback. */
    private static final class Checked extends RuntimeException {
        Checked(Throwable cause) {
            super(cause);
        }
    }

    /** {@code update(JobExecution)} with the status COMPLETED: the job execution's own end. */
    private static boolean completesTheJob(Method method, Object[] args) {
        return method.getName().equals("update")
                && args != null
                && args.length == 1
                && args[0] instanceof JobExecution je
                && je.getStatus() == BatchStatus.COMPLETED;
    }

    private Optional<ClaimedRun> runOf(Object[] args) {
        for (Object a : args == null ? new Object[0] : args) {
            if (a instanceof JobExecution je) {
                return runs.of(je.getId());
            }
            if (a instanceof StepExecution se) {
                return runs.of(se.getJobExecution().getId());
            }
        }
        return Optional.empty();
    }

    private Object call(Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(delegate, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private Object objectMethod(Object proxy, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            case "toString":
                return "FencedJobRepository[" + delegate + "]";
            default:
                return call(method, args);
        }
    }
}
