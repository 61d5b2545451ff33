package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.db.TenureSchema;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.Timing;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 1: three processes run the "settlement" job through the real coordinator; one is killed mid-run, another
 * frozen mid-run past its lease (SIGSTOP). The console's pages, loaded in headless Chromium, show the job, the
 * nodes by name, the rotations and the rejected stale write; screenshots go to {@code target/console-jobs.png} and
 * {@code target/console-job.png}.
 */
class ConsoleBrowserIT {

    private static final int FIRES = 14;
    private static final long INTERVAL = 1000;
    private static TestDatabase test;
    private static PostgresDatabase db;
    private static HikariDataSource pool;
    private static final List<JvmProcess> NODES = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        test = TestDatabase.forClass(ConsoleBrowserIT.class);
        db = test.database();
        pool = test.pool();
        TenureSchema.migrate(pool);
        test.sql("CREATE TABLE settlement (fire text NOT NULL, epoch bigint NOT NULL)");
    }

    @AfterAll
    static void stop() {
        NODES.forEach(JvmProcess::close);
        test.close();
    }

    @Test
    void thePage_showsTheJob_theRotations_andTheRejectedStaleWrite() throws Exception {
        long start = System.currentTimeMillis()
                + Timing.scaled(Duration.ofSeconds(8)).toMillis();
        String pw = db.password() == null || db.password().isEmpty() ? "-" : db.password();
        for (int i = 0; i < 3; i++) {
            NODES.add(JvmProcess.start(
                    List.of(),
                    TourNode.class.getName(),
                    List.of(
                            db.jdbcUrl(),
                            db.username(),
                            pw,
                            Integer.toString(FIRES),
                            Long.toString(start),
                            Long.toString(INTERVAL),
                            "tour-" + i)));
        }
        for (JvmProcess n : NODES) {
            n.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(60)));
        }
        JvmProcess killed = NODES.get(awaitRunning("fire-3", start + 3 * INTERVAL));
        killed.kill();
        JvmProcess frozen = NODES.get(awaitRunning("fire-6", start + 6 * INTERVAL));
        frozen.pause();
        Thread.sleep(Timing.scaledMillis(3500)); // the lease is 1.5 s: another node claims the job meanwhile
        frozen.resume();
        for (JvmProcess n : NODES) {
            if (n != killed) {
                n.awaitStdoutLine("DONE"::equals, Timing.scaled(Duration.ofSeconds(60)));
            }
        }
        Map<String, Integer> statuses = statuses();
        assertThat(statuses)
                .as("runs by status; frozen node said %s", frozen.stdoutLines())
                .containsKeys("ABANDONED", "REJECTED_STALE", "COMPLETED");

        HeadlessChromium chromium = HeadlessChromium.find();
        try (ConsoleServer server = TenureConsole.builder(pool)
                .refreshEvery(Duration.ofSeconds(1))
                .build()
                .serve(new InetSocketAddress("127.0.0.1", 0))) {
            String jobs = chromium.dumpDom(server.url() + "/");
            assertThat(jobs).contains(">settlement</a>", ">reporter<", "Leader elections", "COMPLETED");
            assertThat(jobs)
                    .as("the page's script (allowed by its CSP) refreshed the live part")
                    .contains("data-refreshes=\"");
            String job = chromium.dumpDom(server.url() + "/job?key=settlement");
            assertThat(job)
                    .contains(
                            "<h1>settlement</h1>",
                            "<svg class=\"timeline\"",
                            "class=\"handover\"",
                            "rotation: another node than the last fire's ran it");
            assertThat(job)
                    .as("the frozen node's run, refused as stale")
                    .containsPattern(row(frozen, "REJECTED_STALE"));
            assertThat(job).as("the killed node's run, abandoned").containsPattern(row(killed, "ABANDONED"));
            assertThat(count(job, "rotations")).isGreaterThanOrEqualTo(2);
            assertThat(count(job, "stale writes rejected")).isEqualTo(statuses.get("REJECTED_STALE"));
            assertThat(count(job, "abandoned runs")).isGreaterThanOrEqualTo(1);
            Path target = Path.of(System.getProperty("tenure.console.target", "target"));
            chromium.screenshot(server.url() + "/", target.resolve("console-jobs.png"), 1280, 720);
            chromium.screenshot(server.url() + "/job?key=settlement", target.resolve("console-job.png"), 1280, 1500);
        }
    }

    /**
     * The index of the node running {@code fire} (START printed, no OUTCOME yet); its work takes 4 s. Waits up to 30 s
     * past the fire's time: under two busy loops and the rest of the suite, three nodes once took longer than 10 s to
     * get from fire-0 to fire-3.
     */
    private static int awaitRunning(String fire, long due) throws InterruptedException {
        long deadline = due + Timing.scaled(Duration.ofSeconds(30)).toMillis();
        while (System.currentTimeMillis() < deadline) {
            for (int i = 0; i < NODES.size(); i++) {
                List<String> lines = NODES.get(i).isAlive() ? NODES.get(i).stdoutLines() : List.of();
                if (lines.contains("START " + fire)
                        && lines.stream().noneMatch(l -> l.startsWith("OUTCOME " + fire + " "))) {
                    return i;
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no node was running " + fire + ": "
                + NODES.stream().map(JvmProcess::stdoutLines).toList());
    }

    private static Map<String, Integer> statuses() throws Exception {
        Map<String, Integer> out = new HashMap<>();
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(
                        "SELECT status, count(*) FROM tenure.job_runs WHERE job_key = 'settlement' GROUP BY 1")) {
            while (r.next()) {
                out.put(r.getString(1), r.getInt(2));
            }
        }
        return out;
    }

    /** A row of the fires table: a fire run by {@code node} (named {@code tour-<index>}), with this status. */
    private static Pattern row(JvmProcess node, String status) {
        return Pattern.compile("<td>fire-\\d+</td><td>tour-" + NODES.indexOf(node) + "</td><td class=\"num\">\\d+</td>"
                + "<td><span class=\"badge st-" + status + "\">");
    }

    private static int count(String html, String name) {
        Matcher m = Pattern.compile("<b>(\\d+)</b> " + Pattern.quote(name)).matcher(html);
        assertThat(m.find()).as("'%s' count on the page", name).isTrue();
        return Integer.parseInt(m.group(1));
    }
}
