package dev.tenure.it;

import dev.tenure.JobCoordinator;
import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 4, acceptance 1: three processes, 60 fires, every fire executed exactly once (VALKEY and DATABASE modes). */
class JobCoordinatorIT {

    private static final int FIRES = 60;
    private static final long INTERVAL_MS = 250;

    private static ValkeyServer valkey;
    private static PostgresDatabase db;

    @BeforeAll
    static void start() throws Exception {
        valkey = ValkeyServers.standalone();
        db = PostgresDatabases.forClass(JobCoordinatorIT.class);
        TenureSchema.migrate(db.dataSource());
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE business_ledger (fire_key text PRIMARY KEY, epoch bigint NOT NULL)");
        }
    }

    @AfterAll
    static void stop() {
        db.close();
        valkey.close();
    }

    @BeforeEach
    void clean() throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("TRUNCATE business_ledger");
        }
    }

    @ParameterizedTest
    @EnumSource(value = JobCoordinator.Mode.class, names = {"VALKEY", "DATABASE"})
    void threeProcesses_60fires_eachExecutedExactlyOnce(JobCoordinator.Mode mode) throws Exception {
        String job = "settlement-" + mode;
        long startAt = System.currentTimeMillis() + 8000;
        List<JvmProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(JvmProcess.start(CoordinatedWorker.class, mode.name(),
                        mode == JobCoordinator.Mode.DATABASE ? "-" : valkey.address(), db.jdbcUrl(), db.username(),
                        db.password() == null || db.password().isEmpty() ? "-" : db.password(), job,
                        Integer.toString(FIRES), Long.toString(INTERVAL_MS), Long.toString(startAt), "30"));
            }
            int executed = 0;
            for (JvmProcess n : nodes) {
                n.awaitStdoutLine("DONE"::equals, Timing.scaled(Duration.ofSeconds(90)));
                executed += (int) n.stdoutLines().stream().filter(l -> l.startsWith("OUTCOME ") && l.contains(" EXECUTED ")).count();
                assertThat(n.stdoutLines()).noneMatch(l -> l.contains(" ERROR ") || l.contains(" LEASE_LOST "));
            }
            java.util.Map<String, List<String>> byFire = new java.util.TreeMap<>();
            for (int i = 0; i < nodes.size(); i++) {
                for (String l : nodes.get(i).stdoutLines()) {
                    if (l.startsWith("OUTCOME ")) {
                        String[] p = l.split(" ");
                        byFire.computeIfAbsent(p[1], k -> new ArrayList<>()).add("node" + i + ":" + l.substring(8 + p[1].length()).trim());
                    }
                }
            }
            String notExecuted = byFire.entrySet().stream().filter(e -> e.getValue().stream().noneMatch(v -> v.contains("EXECUTED")))
                    .map(Object::toString).reduce("", (x, y) -> x + "\n" + y);
            assertThat(executed).as("fires executed; not executed: %s", notExecuted).isEqualTo(FIRES);
        } finally {
            nodes.forEach(JvmProcess::close);
        }
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            ResultSet r = s.executeQuery("SELECT count(*), count(DISTINCT fire_key) FROM business_ledger");
            r.next();
            assertThat(r.getInt(1)).as("business rows").isEqualTo(FIRES);
            assertThat(r.getInt(2)).isEqualTo(FIRES);
            r = s.executeQuery("SELECT count(*) FROM tenure.job_run WHERE job_key = '" + job + "' AND status = 'COMPLETED'");
            r.next();
            assertThat(r.getInt(1)).as("COMPLETED job_run rows").isEqualTo(FIRES);
        }
    }
}
