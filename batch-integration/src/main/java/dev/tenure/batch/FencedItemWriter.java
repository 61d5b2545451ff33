package dev.tenure.batch;

import dev.tenure.integration.ClaimedRun;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.batch.infrastructure.item.Chunk;
import org.springframework.batch.infrastructure.item.ItemWriter;

/**
 * Runs the fence check in the chunk's transaction, then the delegate: a stale owner's chunk fails before its
 * business writes and rolls back with them. Thread-safe if the delegate is.
 */
final class FencedItemWriter<T> implements ItemWriter<T> {

    private final ItemWriter<T> delegate;
    private final ChunkFence fence;
    private final BatchRuns runs;

    FencedItemWriter(ItemWriter<T> delegate, DataSource dataSource, BatchRuns runs) {
        this.delegate = Objects.requireNonNull(delegate, "writer");
        this.fence = new ChunkFence(dataSource);
        this.runs = runs;
    }

    @Override
    public void write(Chunk<? extends T> chunk) throws Exception {
        ClaimedRun run = runs.requireCurrent();
        fence.check(run);
        delegate.write(chunk);
    }
}
