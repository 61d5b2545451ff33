package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.tenure.boot.app.HandOverApp;
import dev.tenure.boot.app.TestApps;
import dev.tenure.boot.logs.LogLines;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Issue 35 item 9: a stopping instance says when its drain cuts a run short. A Boot application ({@link HandOverApp})
 * whose coordinated method runs for 6 s is closed gracefully ({@code context.close()}) in the middle of a run, with a
 * 1 s shutdown phase timeout: the node writes one INFO that names the job and the fire, says the run was cut short by
 * the drain timeout, and what happens next; the run's row is ABANDONED for the shutdown. Real Postgres and Valkey.
 */
class ShutdownDrainLogIT {

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(ShutdownDrainLogIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void closeMidRun_drainTooShort_oneInfoFromTheStoppingNode_namingTheJobTheFireAndWhatComesNext() throws Exception {
        ConfigurableApplicationContext app = TestApps.start(
                HandOverApp.class,
                servers,
                "spring.main.web-application-type=none",
                "tenure.missed-fires.enabled=false",
                "spring.lifecycle.timeout-per-shutdown-phase=1s",
                "settlement.work=6s");
        String fire;
        List<String> lines;
        try (LogLines log = LogLines.capture(Level.INFO, "dev.tenure")) {
            await("a run in progress")
                    .atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .until(() -> servers.queryLong(
                                    "SELECT count(*) FROM tenure.job_runs WHERE job_key = 'hand-over' AND status = 'RUNNING'")
                            == 1);
            fire = runningFire();
            app.close();
            lines = log.lines();
        }
        System.out.println("the stopping node said:");
        lines.forEach(l -> System.out.println("  | " + l));
        assertThat(lines)
                .as("INFO lines about the run the drain cut short")
                .filteredOn(l -> l.startsWith("INFO") && l.contains("cut short"))
                .singleElement()
                .satisfies(l -> assertThat(l)
                        .contains("hand-over", fire, "drain timeout", "ABANDONED", "another node", "MISSED"));
        assertThat(lines)
                .as("WARN or ERROR lines of Tenure about it")
                .noneMatch(l -> (l.startsWith("WARN") || l.startsWith("ERROR")) && l.contains(fire));
        assertThat(servers.queryLong("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'hand-over' AND fire_key = '"
                        + fire + "' AND status = 'ABANDONED' AND error LIKE 'shutdown%'"))
                .as("the run's row")
                .isEqualTo(1);
    }

    private static String runningFire() throws Exception {
        try (var c = servers.db().dataSource().getConnection();
                var s = c.createStatement();
                var rs = s.executeQuery(
                        "SELECT fire_key FROM tenure.job_runs WHERE job_key = 'hand-over' AND status = 'RUNNING'")) {
            assertThat(rs.next()).isTrue();
            return rs.getString(1);
        }
    }
}
