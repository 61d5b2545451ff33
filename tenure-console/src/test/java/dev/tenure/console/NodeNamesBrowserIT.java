package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaderElection;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.Timing;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 24, items 3 and 4, in a real headless Chromium: three named nodes ({@code web-1/invoicing/<pid>} ...) share the
 * "invoicing" fires in turn, as a healthy cluster does; one fire's holder loses its lease mid-run to an operator's
 * force-release and comes back (REJECTED_STALE). The console shows the node names (never {@code pid N}), counts the node
 * changes as rotations in neutral colours, and still shows the refused stale run as an incident, in red. A screenshot
 * goes to {@code target/console-rotation.png}.
 */
class NodeNamesBrowserIT {

    private static final long PID = ProcessHandle.current().pid();
    private static final String RED = "rgb(180, 52, 28)";
    private static TestDatabase db;
    private static HikariDataSource pool;
    private static final List<Tenure> NODES = new ArrayList<>();

    @BeforeAll
    static void start() {
        db = TestDatabase.forClass(NodeNamesBrowserIT.class);
        pool = db.pool();
        for (int i = 1; i <= 3; i++) {
            NODES.add(Tenure.builder()
                    .dataSource(pool)
                    .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                    .nodeName("web-" + i + "/invoicing/" + PID)
                    .build());
        }
    }

    @AfterAll
    static void stop() {
        NODES.forEach(Tenure::close);
        db.close();
    }

    @Test
    void threeNamedNodesRotate_theConsoleShowsTheirNames_rotationNeutral_andTheStaleRunAsAnIncident() throws Exception {
        int[] turns = {0, 1, 2, 0, 1, 2};
        for (int k = 0; k < turns.length; k++) {
            RunOutcome<Integer> o = NODES.get(turns[k])
                    .coordinator()
                    .run(
                            "invoicing",
                            "fire-" + k,
                            RunPolicy.skipFire(),
                            ctx -> ctx.completeInTransaction(pool, c -> 1));
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        }
        RunOutcome<Integer> stale = heldAndForceReleased(NODES.get(1), "fire-6");
        assertThat(stale.status())
                .as("the holder came back after the force-release")
                .isEqualTo(RunOutcome.Status.LEASE_LOST);
        assertThat(NODES.get(2)
                        .coordinator()
                        .run("invoicing", "fire-7", RunPolicy.skipFire(), ctx -> 1)
                        .status())
                .isEqualTo(RunOutcome.Status.EXECUTED);
        LeaderElection reporter = NODES.get(2).leaderElection("reporter", new LeaderElection.Listener() {
            @Override
            public void elected(long term) {}

            @Override
            public void revoked(String reason) {}
        });
        reporter.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(reporter::isLeader);

        List<String> nodes = nodesInOrder();
        int rotations = 0;
        for (int i = 1; i < nodes.size(); i++) {
            rotations += Objects.equals(nodes.get(i), nodes.get(i - 1)) ? 0 : 1;
        }
        assertThat(rotations)
                .as("node changes between consecutive fires, %s", nodes)
                .isGreaterThanOrEqualTo(6);
        String web1 = "web-1/invoicing/" + PID;
        String web2 = "web-2/invoicing/" + PID;
        String web3 = "web-3/invoicing/" + PID;

        HeadlessChromium chromium = HeadlessChromium.find();
        try (ConsoleServer server = TenureConsole.builder(pool)
                        .refreshEvery(Duration.ZERO)
                        .build()
                        .serve(new InetSocketAddress("127.0.0.1", 0));
                ChromiumTab tab = chromium.open()) {
            tab.navigate(server.url() + "/");
            tab.await("document.querySelector('h2') !== null", Duration.ofSeconds(10));
            assertThat(tab.text())
                    .as("the role's leader by name")
                    .contains("reporter", web3)
                    .doesNotContain("pid ");

            tab.navigate(server.url() + "/job?key=invoicing");
            tab.await("document.querySelector('table.runs, table') !== null", Duration.ofSeconds(10));
            String text = tab.text();
            assertThat(text).contains(web1, web2, web3).doesNotContain("pid ", "takeover");

            JsonNode rows = tab.evaluate("[...document.querySelectorAll('section table tbody tr')]"
                    + ".filter(r => r.cells.length === 9).map(r => [r.cells[0].textContent, r.cells[1].textContent, "
                    + "r.className, r.cells[3].textContent, getComputedStyle(r.cells[0]).backgroundColor, "
                    + "r.cells[7].textContent])");
            assertThat(rows).as("the fires, newest first").hasSize(8);
            assertThat(rows)
                    .extracting(r -> r.get(1).asText())
                    .containsExactly(web3, web2, web3, web2, web1, web3, web2, web1);
            String rotationBackground = null;
            String incidentBackground = null;
            for (JsonNode r : rows) {
                String fire = r.get(0).asText();
                if (fire.equals("fire-6")) {
                    assertThat(r.get(3).asText()).isEqualTo("REJECTED_STALE");
                    assertThat(r.get(2).asText())
                            .as("the refused stale run is an incident")
                            .isEqualTo("incident");
                    incidentBackground = r.get(4).asText();
                } else if (!fire.equals("fire-0")) {
                    assertThat(r.get(2).asText())
                            .as("%s ran on another node than the fire before it", fire)
                            .isEqualTo("rotation");
                    assertThat(r.get(5).asText()).startsWith("rotation: another node than the last fire's ran it.");
                    rotationBackground = r.get(4).asText();
                }
            }
            assertThat(incidentBackground)
                    .as("an incident row is tinted, a rotation row is not")
                    .isNotEqualTo(rotationBackground);

            List<String> rotationCount = summaryItem(tab, "rotations");
            assertThat(rotationCount.subList(0, 2))
                    .as("rotations: counted, neutral")
                    .containsExactly(Integer.toString(rotations), "neutral");
            assertThat(rotationCount.get(2)).as("the rotation count is not red").isNotEqualTo(RED);
            assertThat(summaryItem(tab, "stale writes rejected"))
                    .as("the refused stale run: red")
                    .containsExactly("1", "some", RED);
            assertThat(summaryItem(tab, "failed runs").subList(0, 2)).containsExactly("0", "none");
            Path target = Path.of(System.getProperty("tenure.console.target", "target"));
            tab.screenshotFullPage(target.resolve("console-rotation.png"));
        } finally {
            reporter.stop();
        }
    }

    /** Runs {@code fire} on {@code node}, force-releases the job while it runs, then lets it try to complete. */
    private static RunOutcome<Integer> heldAndForceReleased(Tenure node, String fire) throws Exception {
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try {
            Future<RunOutcome<Integer>> run =
                    worker.submit(() -> node.coordinator().run("invoicing", fire, RunPolicy.skipFire(), ctx -> {
                        holding.countDown();
                        proceed.await(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
                        return ctx.completeInTransaction(pool, c -> 1);
                    }));
            assertThat(holding.await(Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS))
                    .isTrue();
            TenureAdmin.ForceRelease r =
                    TenureAdmin.create(pool).forceRelease("invoicing", "stuck after the deploy", "ops:test");
            assertThat(r.oldNode()).isEqualTo(node.nodeName());
            proceed.countDown();
            return run.get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS);
        } finally {
            proceed.countDown();
            worker.shutdownNow();
        }
    }

    /** The count, class and computed colour of the count of a summary item. */
    private static List<String> summaryItem(ChromiumTab tab, String name) {
        JsonNode li = tab.evaluate("(() => { const li = [...document.querySelectorAll('.summary li')].find(l => "
                + "l.textContent.includes(' " + name
                + " ')); return li ? [li.querySelector('b').textContent, li.className, "
                + "getComputedStyle(li.querySelector('b')).color] : null; })()");
        assertThat(li).as("summary item '%s'", name).isNotNull();
        return List.of(li.get(0).asText(), li.get(1).asText(), li.get(2).asText());
    }

    /** The node of each fire of "invoicing", by start. */
    private static List<String> nodesInOrder() throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT node FROM tenure.job_runs WHERE job_key = 'invoicing' "
                        + "ORDER BY started_at, run_id")) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }
}
