package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.Timing;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, item 6: force-release as an operator does it, in a real headless Chromium: open the job's page, sign in
 * (the browser's Basic prompt, answered with the operator's credentials), type a reason, click the button, and see the
 * job's epoch change on the page the browser lands on. No request is made by hand: the browser sends its own Origin,
 * cookies and credentials. A screenshot of the result goes to {@code target/console-force-release.png}.
 */
class ForceReleaseBrowserIT {

    private static final String PASSWORD = "correct horse battery";
    private static final String EPOCH_ON_PAGE = "[...document.querySelectorAll('#live dt')]"
            + ".find(d => d.textContent === 'epoch').nextElementSibling.textContent";
    private static TestDatabase db;
    private static HikariDataSource pool;
    private static Tenure tenure;

    @BeforeAll
    static void start() {
        db = TestDatabase.forClass(ForceReleaseBrowserIT.class);
        pool = db.pool();
        tenure = Tenure.builder()
                .dataSource(pool)
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .build();
    }

    @AfterAll
    static void stop() {
        tenure.close();
        db.close();
    }

    @Test
    void anOperatorSignsIn_typesAReason_clicksForceRelease_andSeesTheEpochChange() throws Exception {
        HeadlessChromium chromium = HeadlessChromium.find();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try {
            Future<RunOutcome<Integer>> run =
                    worker.submit(() -> tenure.coordinator().run("payout", "fire-1", RunPolicy.skipFire(), ctx -> {
                        holding.countDown();
                        proceed.await(Timing.scaledMillis(60_000), TimeUnit.MILLISECONDS);
                        return ctx.completeInTransaction(pool, c -> 1);
                    }));
            assertThat(holding.await(Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS))
                    .isTrue();
            TenureAdmin admin = TenureAdmin.create(pool);
            long epoch = admin.job("payout").orElseThrow().epoch();

            try (ConsoleServer server = TenureConsole.builder(pool)
                            .actions("ops", PASSWORD)
                            .refreshEvery(Duration.ZERO)
                            .build()
                            .serve(new InetSocketAddress("127.0.0.1", 0));
                    ChromiumTab tab = chromium.open()) {
                tab.answerSignIn("ops", PASSWORD);
                tab.navigate(server.url() + "/job?key=payout");
                assertThat(tab.evaluate(EPOCH_ON_PAGE).asText()).isEqualTo(Long.toString(epoch));
                assertThat(tab.evaluate("document.querySelector('#actions form')")
                                .isNull())
                        .as("no form before sign-in")
                        .isTrue();

                tab.click("#signin");
                tab.await(
                        "location.pathname === '/job' && document.querySelector('#actions form') !== null",
                        Duration.ofSeconds(10));
                assertThat(tab.text()).contains("Signed in as ops.");
                tab.click("#actions input[name=reason]");
                tab.type("stuck since the deploy");
                tab.click("#actions button[type=submit]");
                tab.await(
                        "location.pathname === '/job' && " + EPOCH_ON_PAGE + " !== '" + epoch + "'",
                        Duration.ofSeconds(10));

                long shown = Long.parseLong(tab.evaluate(EPOCH_ON_PAGE).asText());
                assertThat(shown)
                        .as("the new epoch on the page")
                        .isGreaterThan(epoch)
                        .isEqualTo(admin.job("payout").orElseThrow().epoch());
                assertThat(tab.text()).contains("force-release by console:ops", "stuck since the deploy");
                assertThat(tab.signInPrompts())
                        .as("the browser asked the operator to sign in, once")
                        .containsExactly(server.url() + "/signin?next=%2Fjob%3Fkey%3Dpayout");
                Path target = Path.of(System.getProperty("tenure.console.target", "target"));
                tab.screenshot(target.resolve("console-force-release.png"));
            }
            proceed.countDown();
            assertThat(run.get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS)
                            .status())
                    .as("the old holder's fence failed")
                    .isEqualTo(RunOutcome.Status.LEASE_LOST);
        } finally {
            proceed.countDown();
            worker.shutdownNow();
        }
    }
}
