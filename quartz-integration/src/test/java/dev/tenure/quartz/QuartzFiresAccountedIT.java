package dev.tenure.quartz;

import dev.tenure.testkit.FireAccountingTour;
import dev.tenure.testkit.FireAccounts;
import dev.tenure.testkit.JvmProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 21, acceptance 2, for Quartz: three JVMs ({@link InvoicingQuartzNode}), each a scheduler on a RAM job store with
 * a two-second cron in UTC, coordinated through {@code QuartzCoordination.builder(tenure)}; one job catches missed
 * fires up, the other skips them. Through a SIGKILL, a 25 s SIGSTOP mid-transaction and a SIGTERM mid-run
 * ({@link FireAccountingTour}): every slot of the catch-up job has exactly one invoice, every slot of the skip job one
 * invoice or one MISSED record, and no invoice belongs to a fire that is not a slot. The nodes' misfire threshold
 * (5 s) is below the freeze, so the frozen node's trigger misfires on resume, as it would after a freeze of more than
 * Quartz's default 60 s: Quartz then fires once at once with a scheduled fire time that is no slot.
 */
class QuartzFiresAccountedIT {

    private static final Duration TTL = Duration.ofSeconds(4);
    private static final Duration MISFIRE_THRESHOLD = Duration.ofSeconds(5);
    private static QuartzServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new QuartzServers(QuartzFiresAccountedIT.class, null);
        servers.execute("CREATE TABLE invoice (job text NOT NULL, slot text NOT NULL, node text NOT NULL, "
                + "epoch bigint NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())");
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void everySlotRunsOnceOrIsReported_throughAKillAFreezeAndAShutdown() throws Exception {
        FireAccountingTour tour = new FireAccountingTour(
                        servers.db,
                        "invoice",
                        FireKeys.jobKey(InvoicingQuartzNode.CATCH_UP),
                        FireKeys.jobKey(InvoicingQuartzNode.SKIP),
                        this::node)
                .keepOutputIn(Path.of("target", "fire-accounting", "quartz"));
        FireAccounts accounts = tour.run();
        accounts.print("quartz");
        accounts.assertContract(TTL);
    }

    private JvmProcess node(String name) {
        String password =
                servers.db.password() == null || servers.db.password().isEmpty() ? "-" : servers.db.password();
        return JvmProcess.start(
                List.of(
                        "-Dorg.slf4j.simpleLogger.showDateTime=true",
                        "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS"),
                InvoicingQuartzNode.class.getName(),
                List.of(
                        name,
                        servers.valkey.address(),
                        servers.db.jdbcUrl(),
                        servers.db.username(),
                        password,
                        Long.toString(TTL.toMillis()),
                        Long.toString(MISFIRE_THRESHOLD.toMillis())));
    }
}
