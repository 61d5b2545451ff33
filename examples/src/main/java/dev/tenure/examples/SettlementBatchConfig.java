package dev.tenure.examples;

import dev.tenure.JobContext;
import dev.tenure.Tenure;
import dev.tenure.batch.GuardedJobOperator;
import dev.tenure.batch.TenureBatch;
import dev.tenure.db.TenureDataSources;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.batch.core.configuration.support.MapJobRegistry;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.launch.support.TaskExecutorJobOperator;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.repository.support.JdbcJobRepositoryFactoryBean;
import org.springframework.batch.core.step.Step;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.item.ItemWriter;
import org.springframework.batch.infrastructure.item.database.JdbcPagingItemReader;
import org.springframework.batch.infrastructure.item.database.Order;
import org.springframework.batch.infrastructure.item.database.builder.JdbcPagingItemReaderBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * A plain Spring {@code @Configuration} (no Spring Boot) of one settlement application: the Spring Batch tables,
 * the ledger and Tenure's tables on one Postgres DataSource, a JDBC job repository, and a settlement step whose
 * writer is fenced in one line. Connection settings come from system properties {@code demo.valkey},
 * {@code demo.jdbcUrl}, {@code demo.user}, {@code demo.password} and {@code demo.node}.
 */
@Configuration
public class SettlementBatchConfig {

    /** One ledger entry to settle. */
    public record Entry(long id, long cents) {}

    @Bean(destroyMethod = "")
    DataSource dataSource(Environment env) {
        // a frozen process must not keep its chunk's fence lock (and so the job) forever
        return TenureDataSources.hikari(
                env.getRequiredProperty("demo.jdbcUrl") + "?options=-c%20idle_in_transaction_session_timeout%3D4000",
                env.getRequiredProperty("demo.user"),
                env.getProperty("demo.password", ""));
    }

    @Bean
    DataSourceTransactionManager transactionManager(DataSource dataSource) {
        return new DataSourceTransactionManager(dataSource);
    }

    @Bean(destroyMethod = "close")
    Tenure tenure(DataSource dataSource, Environment env) {
        return TourNodes.tenure(
                dataSource, env.getRequiredProperty("demo.valkey"), env.getRequiredProperty("demo.node"));
    }

    @Bean
    TenureBatch tenureBatch(Tenure tenure, DataSource dataSource) {
        return TenureBatch.of(tenure, dataSource);
    }

    @Bean
    JobRepository jobRepository(
            DataSource dataSource, DataSourceTransactionManager transactionManager, TenureBatch tenure)
            throws Exception {
        JdbcJobRepositoryFactoryBean factory = new JdbcJobRepositoryFactoryBean();
        factory.setDataSource(dataSource);
        factory.setTransactionManager(transactionManager);
        factory.afterPropertiesSet();
        return tenure.fenced(factory.getObject()); // a stale owner's bookkeeping cannot overwrite the new owner's
    }

    @Bean
    TaskExecutorJobOperator jobOperator(JobRepository jobRepository) throws Exception {
        TaskExecutorJobOperator operator = new TaskExecutorJobOperator();
        operator.setJobRepository(jobRepository);
        operator.setJobRegistry(new MapJobRegistry());
        operator.setTaskExecutor(new SyncTaskExecutor());
        operator.afterPropertiesSet();
        return operator;
    }

    @Bean
    GuardedJobOperator guardedJobOperator(
            TenureBatch tenure, TaskExecutorJobOperator jobOperator, JobRepository jobRepository) {
        return tenure.guard(jobOperator, jobRepository);
    }

    @Bean
    JdbcPagingItemReader<Entry> entries(DataSource dataSource) throws Exception {
        return new JdbcPagingItemReaderBuilder<Entry>()
                .name("entries")
                .dataSource(dataSource)
                .selectClause("id, amount_cents")
                .fromClause("ledger_entry")
                .sortKeys(Map.of("id", Order.ASCENDING))
                .rowMapper((rs, i) -> new Entry(rs.getLong(1), rs.getLong(2)))
                .pageSize(50)
                .build();
    }

    @Bean
    ItemWriter<Entry> settle(DataSource dataSource, TenureBatch tenure, Environment env) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String node = env.getRequiredProperty("demo.node");
        return chunk -> {
            long epoch = JobContext.current().epoch();
            Thread.sleep(100); // summing and booking the chunk's payments
            jdbc.batchUpdate(
                    "INSERT INTO settlement(entry_id, amount_cents, epoch, node) VALUES (?, ?, ?, ?)",
                    chunk.getItems().stream()
                            .map(e -> new Object[] {e.id(), e.cents(), epoch, node})
                            .toList());
            System.out.println("CHUNK " + chunk.getItems().get(0).id() + " " + epoch);
        };
    }

    @Bean
    Step settleStep(
            JobRepository jobRepository,
            DataSourceTransactionManager tx,
            TenureBatch tenure,
            JdbcPagingItemReader<Entry> entries,
            ItemWriter<Entry> settle) {
        // the one line: fenced writer (in the chunk transaction) + stop on lease loss
        return tenure.fencedChunks(
                        new StepBuilder("settle", jobRepository)
                                .<Entry, Entry>chunk(50)
                                .transactionManager(tx)
                                .reader(entries),
                        settle)
                .build();
    }

    @Bean
    Job settlementJob(JobRepository jobRepository, Step settleStep) {
        return new JobBuilder("settlement", jobRepository).start(settleStep).build();
    }
}
