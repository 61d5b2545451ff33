package dev.tenure.batch;

import dev.tenure.integration.ClaimedRun;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.batch.core.scope.context.ChunkContext;
import org.springframework.batch.core.step.StepContribution;
import org.springframework.batch.core.step.tasklet.Tasklet;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;

/**
 * Runs the fence check in the tasklet's transaction, then the delegate: a stale owner's iteration fails before its
 * writes and rolls back with them. Thread-safe if the delegate is.
 */
final class FencedTasklet implements Tasklet {

    private final Tasklet delegate;
    private final ChunkFence fence;
    private final BatchRuns runs;

    FencedTasklet(Tasklet delegate, DataSource dataSource, BatchRuns runs) {
        this.delegate = Objects.requireNonNull(delegate, "tasklet");
        this.fence = new ChunkFence(dataSource);
        this.runs = runs;
    }

    @Override
    public @Nullable RepeatStatus execute(StepContribution contribution, ChunkContext chunkContext) throws Exception {
        ClaimedRun run = runs.require(chunkContext.getStepContext().getStepExecution());
        fence.check(run);
        return delegate.execute(contribution, chunkContext);
    }
}
