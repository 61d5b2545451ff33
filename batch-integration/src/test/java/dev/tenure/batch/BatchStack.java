package dev.tenure.batch;

import dev.tenure.JobCoordinator;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.db.TenureDataSources;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.batch.core.configuration.support.MapJobRegistry;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.launch.support.TaskExecutorJobOperator;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.repository.support.JdbcJobRepositoryFactoryBean;
import org.springframework.batch.core.step.Step;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.item.ItemProcessor;
import org.springframework.batch.infrastructure.item.ItemWriter;
import org.springframework.batch.infrastructure.item.database.Order;
import org.springframework.batch.infrastructure.item.database.builder.JdbcPagingItemReaderBuilder;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.task.TaskExecutor;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * One process's Spring Batch + Tenure stack on the test servers: a fenced JDBC job repository and business tables on one
 * DataSource, a coordinator with a short TTL, and a settlement job over {@code ledger_entry}: each chunk inserts one
 * {@code settlement} row per entry (no unique key, so a double settlement would show) in the fenced chunk transaction.
 */
final class BatchStack implements AutoCloseable {

    static final int CHUNK = 50;

    /** One ledger entry to settle. */
    record Entry(long id, long cents) {}

    final DataSource dataSource;
    final JdbcTemplate jdbc;
    final JobCoordinator coordinator;
    final JobRepository repository;
    final TaskExecutorJobOperator operator;
    final TenureBatch tenure;
    private final Tenure tenureInstance;

    BatchStack(String valkeyAddress, String jdbcUrl, String user, String password, Duration ttl, TaskExecutor executor)
            throws Exception {
        // a frozen process must not keep its chunk's fence lock (and so the job) forever
        String url = jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?")
                + "options=-c%20idle_in_transaction_session_timeout%3D4000";
        dataSource = TenureDataSources.hikari(url, user, password);
        jdbc = new JdbcTemplate(dataSource);
        tenureInstance = Tenure.builder()
                .dataSource(dataSource)
                .valkey(ValkeyConfig.standalone(valkeyAddress)
                        .requestTimeout(Duration.ofMillis(500))
                        .build())
                .leaseDefaults(LeaseOptions.ofTtl(ttl))
                .build();
        coordinator = tenureInstance.coordinator();
        DataSourceTransactionManager tx = new DataSourceTransactionManager(dataSource);
        JdbcJobRepositoryFactoryBean factory = new JdbcJobRepositoryFactoryBean();
        factory.setDataSource(dataSource);
        factory.setTransactionManager(tx);
        factory.afterPropertiesSet();
        tenure = TenureBatch.of(tenureInstance, dataSource);
        repository = tenure.fenced(factory.getObject());
        operator = new TaskExecutorJobOperator();
        operator.setJobRepository(repository);
        operator.setTaskExecutor(executor);
        operator.setJobRegistry(new MapJobRegistry());
        operator.afterPropertiesSet();
    }

    /** Spring Batch's schema and the business tables with {@code rows} unsettled entries (run once, before the nodes). */
    static void createSchema(DataSource ds, int rows) {
        new ResourceDatabasePopulator(new ClassPathResource("org/springframework/batch/core/schema-postgresql.sql"))
                .execute(ds);
        JdbcTemplate t = new JdbcTemplate(ds);
        t.execute("CREATE TABLE ledger_entry (id bigint PRIMARY KEY, amount_cents bigint NOT NULL)");
        t.execute(
                "CREATE TABLE settlement (entry_id bigint NOT NULL, amount_cents bigint NOT NULL, epoch bigint NOT NULL, node text NOT NULL)");
        t.update("INSERT INTO ledger_entry SELECT g, g * 7 % 1000 + 1 FROM generate_series(1, ?) g", rows);
    }

    /** The settlement job: one chunk step, {@code itemMillis} of "work" per item, {@code onChunk} told each chunk's first id. */
    Job settlementJob(String name, String node, long itemMillis, Consumer<Long> onChunk) throws Exception {
        return new JobBuilder(name, repository)
                .start(settleStep(node, itemMillis, onChunk))
                .build();
    }

    Step settleStep(String node, long itemMillis, Consumer<Long> onChunk) throws Exception {
        return settleStep(node, itemMillis, onChunk, e -> {});
    }

    /** The settle step; {@code onItem} sees each item as it is processed (before its chunk's fence check). */
    Step settleStep(String node, long itemMillis, Consumer<Long> onChunk, Consumer<Entry> onItem) throws Exception {
        var reader = new JdbcPagingItemReaderBuilder<Entry>()
                .name("entries")
                .dataSource(dataSource)
                .selectClause("id, amount_cents")
                .fromClause("ledger_entry")
                .sortKeys(Map.of("id", Order.ASCENDING))
                .rowMapper((rs, i) -> new Entry(rs.getLong(1), rs.getLong(2)))
                .pageSize(CHUNK)
                .build();
        ItemProcessor<Entry, Entry> work = item -> {
            Thread.sleep(itemMillis);
            onItem.accept(item);
            return item;
        };
        ItemWriter<Entry> writer = chunk -> {
            long epoch = currentEpoch();
            onChunk.accept(chunk.getItems().get(0).id());
            jdbc.batchUpdate(
                    "INSERT INTO settlement(entry_id, amount_cents, epoch, node) VALUES (?, ?, ?, ?)",
                    chunk.getItems().stream()
                            .map(e -> new Object[] {e.id(), e.cents(), epoch, node})
                            .toList());
        };
        DataSourceTransactionManager tx = new DataSourceTransactionManager(dataSource);
        return tenure.fencedChunks(
                        new StepBuilder("settle", repository)
                                .<Entry, Entry>chunk(CHUNK)
                                .transactionManager(tx)
                                .reader(reader)
                                .processor(work),
                        writer)
                .build();
    }

    private long currentEpoch() {
        return tenure.currentRun().map(r -> r.epoch()).orElse(0L);
    }

    @Override
    public void close() {
        tenureInstance.close();
    }
}
