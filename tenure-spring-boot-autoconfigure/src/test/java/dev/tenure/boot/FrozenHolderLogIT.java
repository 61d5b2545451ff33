package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.boot.app.FrozenHolderNode;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A frozen holder's return, as its log tells it: a Boot node (a JVM of its own, {@link FrozenHolderNode}) is frozen
 * (SIGSTOP) inside the fenced transaction of a {@code @Transactional @Coordinated} run until its 2 s lease has expired
 * and another node took the fire over (which ends the frozen node's session), then resumed. The frozen node writes one
 * WARN about it, naming the true cause (its epoch superseded, the run fenced off, nothing it wrote committed), with no
 * stack trace and no ERROR. Real Postgres and Valkey.
 */
class FrozenHolderLogIT {

    static BootServers servers;

    @BeforeAll
    static void start() {
        servers = BootServers.start(FrozenHolderLogIT.class);
    }

    @AfterAll
    static void stop() {
        if (servers != null) {
            servers.close();
        }
    }

    @Test
    void frozenHolder_fencedOff_logsOneWarnWithTheCause_noStackTrace_noError() throws Exception {
        try (JvmProcess node = node("frozen-node");
                Tenure other = Tenure.builder()
                        .dataSource(servers.db().dataSource())
                        .nodeName("taker-node")
                        .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                        .build()) {
            node.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(120)));
            String fire = node.awaitStdoutLine(l -> l.startsWith("BEGIN "), Timing.scaled(Duration.ofSeconds(20)))
                    .substring(6)
                    .trim();
            node.pause();
            int from;
            RunOutcome<String> taken;
            try {
                from = node.stdoutLines().size();
                taken = other.coordinator()
                        .run(
                                FrozenHolderNode.JOB,
                                fire,
                                RunPolicy.waitUpTo(Timing.scaled(Duration.ofSeconds(20))),
                                run -> "taken");
            } finally {
                node.resume();
            }
            assertThat(taken.status())
                    .as("the fire taken over while its holder was frozen")
                    .isEqualTo(RunOutcome.Status.EXECUTED);
            int start = from;
            await("the frozen node's WARN about its run")
                    .atMost(Timing.scaled(Duration.ofSeconds(20)))
                    .until(() -> node
                            .stdoutLines()
                            .subList(start, node.stdoutLines().size())
                            .stream()
                            .anyMatch(l -> l.contains(fire) && l.contains(" WARN ")));
            Thread.sleep(Timing.scaled(Duration.ofSeconds(2)).toMillis()); // anything else the return writes
            List<String> lines = new ArrayList<>(
                    node.stdoutLines().subList(from, node.stdoutLines().size()));
            lines.addAll(node.stderrLines());
            System.out.println("the frozen node's return, " + lines.size() + " lines:");
            lines.forEach(l -> System.out.println("  | " + l));

            System.out.printf(
                    "%d WARN, %d ERROR and %d stack-trace lines in all (Hikari and Spring's transaction interceptor "
                            + "write theirs about the connection the fence ended)%n",
                    lines.stream().filter(l -> l.contains(" WARN ")).count(),
                    lines.stream().filter(l -> l.contains(" ERROR ")).count(),
                    lines.stream().filter(l -> l.startsWith("\tat ")).count());

            List<String> tenure = lines.stream()
                    .filter(l -> l.contains(" dev.tenure.boot.Coordinated ") && l.contains(fire))
                    .toList();
            assertThat(tenure)
                    .as("Tenure's lines about the fenced-off run")
                    .singleElement()
                    .satisfies(l -> assertThat(l)
                            .contains(" WARN ", FrozenHolderNode.JOB, "fenced off", "epoch", "completed under epoch")
                            .contains("nothing it wrote in its fenced transactions was committed")
                            .doesNotContain("TransactionSystemException", "rollback failed"));
            int at = lines.indexOf(tenure.get(0));
            assertThat(lines.subList(at + 1, Math.min(at + 3, lines.size())))
                    .as("no stack trace after Tenure's WARN")
                    .noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception"));
            assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = 'frozen'"))
                    .as("the frozen run's write did not commit")
                    .isZero();
        }
    }

    private static JvmProcess node(String name) {
        List<String> args = new ArrayList<>();
        servers.both().forEach(p -> args.add("--" + p));
        args.addAll(List.of(
                "--tenure.node-name=" + name,
                "--spring.main.web-application-type=none",
                "--spring.main.banner-mode=off",
                "--logging.level.root=warn",
                "--spring.task.scheduling.pool.size=2",
                "--spring.autoconfigure.exclude=org.springframework.boot.quartz.autoconfigure.QuartzAutoConfiguration,"
                        + "org.springframework.boot.batch.autoconfigure.BatchAutoConfiguration,"
                        + "org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration"));
        return JvmProcess.start(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), FrozenHolderNode.class.getName(), args);
    }
}
