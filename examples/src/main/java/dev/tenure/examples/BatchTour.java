package dev.tenure.examples;

import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.JvmProcess;
import java.time.Duration;
import java.util.List;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * The Spring Batch tour: two application processes ({@link BatchTourNode}) launch the same settlement job
 * (3,000 ledger entries, chunks of 50) for the same business date. One runs it, the other is refused before any
 * Spring Batch metadata is written. The tour freezes the runner (SIGSTOP) past its 2 s lease; the other process
 * recovers the stale execution and restarts the job from its last committed chunk; the frozen one resumes and its
 * next chunk is rejected by the fence. It prints who settled what under which epoch, and the duplicates (must be 0).
 *
 * <p>Servers: see {@link ExampleServers}.
 */
public final class BatchTour {

    private static final int ROWS = 3000;

    public static void main(String[] args) throws Exception {
        try (ExampleServers servers = ExampleServers.postgresAndValkey(BatchTour.class)) {
            TenureSchema.migrate(servers.dataSource());
            new ResourceDatabasePopulator(new ClassPathResource("org/springframework/batch/core/schema-postgresql.sql"))
                    .execute(servers.dataSource());
            JdbcTemplate jdbc = new JdbcTemplate(servers.dataSource());
            jdbc.execute("CREATE TABLE ledger_entry (id bigint PRIMARY KEY, amount_cents bigint NOT NULL)");
            jdbc.execute(
                    "CREATE TABLE settlement (entry_id bigint NOT NULL, amount_cents bigint NOT NULL, epoch bigint NOT NULL, node text NOT NULL)");
            jdbc.update("INSERT INTO ledger_entry SELECT g, g * 7 % 1000 + 1 FROM generate_series(1, ?) g", ROWS);
            List<JvmProcess> nodes = List.of(
                    TourNodes.start(BatchTourNode.class, List.of("node-a", servers.valkeyAddress()), servers),
                    TourNodes.start(BatchTourNode.class, List.of("node-b", servers.valkeyAddress()), servers));
            try {
                JvmProcess runner = awaitRunner(nodes);
                System.out.println(
                        "runner: pid " + runner.pid() + "; freezing it (SIGSTOP) for 5 s, past its 2 s lease");
                runner.pause();
                Thread.sleep(5000);
                runner.resume();
                for (JvmProcess n : nodes) {
                    n.awaitStdoutLine("DONE"::equals, Duration.ofMinutes(2));
                }
                for (JvmProcess n : nodes) {
                    System.out.println("pid " + n.pid() + ": "
                            + n.stdoutLines().stream()
                                    .filter(l -> l.startsWith("LAUNCH ") && !l.contains("SKIPPED_HELD_ELSEWHERE"))
                                    .toList());
                }
            } finally {
                nodes.forEach(JvmProcess::close);
            }
            jdbc.queryForList("SELECT node, epoch, count(*) AS entries, min(entry_id) AS first, max(entry_id) AS last "
                            + "FROM settlement GROUP BY node, epoch ORDER BY epoch")
                    .forEach(r -> System.out.println("settled: " + r));
            System.out.println("executions: "
                    + jdbc.queryForList("SELECT job_execution_id, status FROM batch_job_execution ORDER BY 1"));
            System.out.printf(
                    "entries %d, settled %d, duplicates %d, missed %d%n",
                    ROWS,
                    jdbc.queryForObject("SELECT count(DISTINCT entry_id) FROM settlement", Integer.class),
                    jdbc.queryForObject("SELECT count(*) - count(DISTINCT entry_id) FROM settlement", Integer.class),
                    jdbc.queryForObject(
                            "SELECT count(*) FROM ledger_entry l WHERE NOT EXISTS (SELECT 1 FROM settlement s WHERE s.entry_id = l.id)",
                            Integer.class));
        }
    }

    private static JvmProcess awaitRunner(List<JvmProcess> nodes) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            for (JvmProcess n : nodes) {
                if (n.stdoutLines().stream().filter(l -> l.startsWith("CHUNK ")).count() >= 10) {
                    return n;
                }
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("no node settled 10 chunks within 60 s");
    }
}
