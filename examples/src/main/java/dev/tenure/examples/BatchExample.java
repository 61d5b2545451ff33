package dev.tenure.examples;

import dev.tenure.JobContext;
import dev.tenure.RunOutcome;
import dev.tenure.Tenure;
import dev.tenure.batch.GuardedJobOperator;
import dev.tenure.batch.TenureBatch;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.springframework.batch.core.configuration.support.MapJobRegistry;
import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.job.parameters.JobParametersBuilder;
import org.springframework.batch.core.launch.support.TaskExecutorJobOperator;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.repository.support.JdbcJobRepositoryFactoryBean;
import org.springframework.batch.core.step.Step;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.item.ItemWriter;
import org.springframework.batch.infrastructure.item.support.ListItemReader;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.task.SyncTaskExecutor;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * Spring Batch ({@code TenureBatch}, no Spring Boot): a payout job whose writer is fenced per chunk, launched through
 * the guard for one business date, twice: the first launch runs it, the second finds the fire done. Prints both
 * outcomes and the payout rows (50, each once).
 */
public final class BatchExample {

    public static void main(String[] args) throws Exception {
        try (ExampleServers servers = ExampleServers.postgres(BatchExample.class)) {
            DataSource dataSource = servers.dataSource();
            new ResourceDatabasePopulator(new ClassPathResource("org/springframework/batch/core/schema-postgresql.sql"))
                    .execute(dataSource);
            servers.sql("CREATE TABLE payout (id bigint NOT NULL, epoch bigint NOT NULL)");
            try (Tenure tenure = Tenure.builder().dataSource(dataSource).build()) {
                run(tenure, dataSource);
            }
            servers.print("SELECT 'payout rows: ' || count(*) || ', distinct ids: ' || count(DISTINCT id) FROM payout");
        }
    }

    static void run(Tenure tenure, DataSource dataSource) throws Exception {
        DataSourceTransactionManager tx = new DataSourceTransactionManager(dataSource);
        // tag::batch-step[]
        JdbcJobRepositoryFactoryBean factory = new JdbcJobRepositoryFactoryBean();   // Spring Batch's JDBC repository
        factory.setDataSource(dataSource);
        factory.setTransactionManager(tx);
        factory.afterPropertiesSet();
        TenureBatch batch = TenureBatch.of(tenure, dataSource);                 // batch, business and Tenure tables: one DataSource
        JobRepository repository = batch.fenced(factory.getObject());           // a stale owner cannot overwrite batch metadata
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);                       // joins the chunk's transaction
        ItemWriter<Long> payouts = chunk -> jdbc.batchUpdate("INSERT INTO payout VALUES (?, ?)", chunk.getItems().stream()
                .map(id -> new Object[] {id, JobContext.current().epoch()}).toList());
        Step pay = batch.fencedChunks(new StepBuilder("pay", repository).<Long, Long>chunk(10).transactionManager(tx)
                .reader(new ListItemReader<>(LongStream.rangeClosed(1, 50).boxed().toList())), payouts).build();
        Job job = new JobBuilder("payouts", repository).start(pay).build();   // fenced writer + stop on lease loss
        // end::batch-step[]
        TaskExecutorJobOperator operator = new TaskExecutorJobOperator();
        operator.setJobRepository(repository);
        operator.setJobRegistry(new MapJobRegistry());
        operator.setTaskExecutor(new SyncTaskExecutor());
        operator.afterPropertiesSet();
        // tag::batch-launch[]
        GuardedJobOperator guard = batch.guard(operator, repository);   // skipFire; or guard(op, repo, RunPolicy.waitUpTo(d))
        JobParameters day = new JobParametersBuilder().addLocalDate("businessDate", LocalDate.of(2026, 12, 2)).toJobParameters();
        for (String attempt : List.of("first", "second")) {
            RunOutcome<Void> o = guard.launch(job, day).awaitOutcome(Duration.ofMinutes(1)).orElseThrow();
            System.out.println(attempt + " launch: " + o.status() + (o.executed() ? " under epoch " + o.epoch() : ""));
        }
        // end::batch-launch[]
    }
}
