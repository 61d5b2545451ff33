package dev.tenure.it;

import dev.tenure.testkit.FireAccountingTour;
import dev.tenure.testkit.FireAccounts;
import dev.tenure.testkit.JvmProcess;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 21, acceptance 2, for a plain {@code JobCoordinator} loop: three JVMs ({@link InvoicingLoopNode}), each
 * registering two jobs on a two-second fixed rate with {@code Tenure.register} and running every slot through the
 * coordinator; one job catches missed fires up, the other skips them. Through a SIGKILL, a 25 s SIGSTOP
 * mid-transaction and a SIGTERM mid-run ({@link FireAccountingTour}): every slot of the catch-up job has exactly one
 * invoice, every slot of the skip job one invoice or one MISSED record, never both, never neither.
 */
class LoopFiresAccountedIT {

    private static final Duration TTL = Duration.ofSeconds(4);
    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(LoopFiresAccountedIT.class);
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
                        servers.db, "invoice", InvoicingLoopNode.CATCH_UP, InvoicingLoopNode.SKIP, this::node)
                .keepOutputIn(Path.of("target", "fire-accounting", "loop"));
        FireAccounts accounts = tour.run();
        accounts.print("loop");
        accounts.assertContract(TTL);
    }

    private JvmProcess node(String name) {
        return JvmProcess.start(
                InvoicingLoopNode.class,
                name,
                servers.valkey.address(),
                servers.db.jdbcUrl(),
                servers.db.username(),
                servers.passwordArg(),
                Long.toString(TTL.toMillis()));
    }
}
