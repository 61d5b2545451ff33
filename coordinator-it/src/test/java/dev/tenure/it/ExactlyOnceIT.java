package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.JobCoordinator;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 10, acceptance 1: three processes run one job's fires (one every 375 ms, 32 fires); every process freezes
 * itself with SIGSTOP for 3.5 s (TTL 2 s) right after its business commit, before its outcome is recorded, on its 2nd,
 * 6th, 10th... execution, and every process retries a fire until it is done. The business table has no unique key on
 * the fire: each fire's row must exist exactly once, because the completion commits with it.
 */
class ExactlyOnceIT {

    private static final int FIRES = 32;
    private static final long INTERVAL_MS = 375;
    private static final long TTL_MS = 2000;
    private static final long FREEZE_MS = 3500;

    private static CoordinatorServers servers;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(ExactlyOnceIT.class);
        servers.execute(
                "CREATE TABLE business_effects (job text NOT NULL, fire_key text NOT NULL, epoch bigint NOT NULL, node text NOT NULL, "
                        + "written_at timestamptz NOT NULL DEFAULT clock_timestamp())");
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY", "DATABASE"})
    void threeProcessesFrozenAfterTheirBusinessCommit_everyFireTakesEffectExactlyOnce(JobCoordinator.Mode mode)
            throws Exception {
        String job = "exactly-once-" + mode.name().toLowerCase();
        List<List<String>> output = runNodes(mode, job);
        List<String> froze = new ArrayList<>();
        List<String> frozenOutcomes = new ArrayList<>();
        for (int i = 0; i < output.size(); i++) {
            List<String> lines = output.get(i);
            List<String> mine = lines.stream()
                    .filter(l -> l.startsWith("FROZE "))
                    .map(l -> l.substring(6))
                    .toList();
            assertThat(mine).as("node n%d froze at least once", i + 1).isNotEmpty();
            froze.addAll(mine);
            for (String fire : mine) {
                lines.stream()
                        .filter(l -> l.startsWith("OUTCOME " + fire + " "))
                        .forEach(frozenOutcomes::add);
            }
            assertThat(lines)
                    .as("every fire settled on every node")
                    .filteredOn(l -> l.startsWith("OUTCOME "))
                    .hasSize(FIRES)
                    .allMatch(l -> l.contains(" EXECUTED ") || l.contains(" SKIPPED_ALREADY_DONE "));
        }
        List<String> duplicated =
                query("SELECT fire_key || ' x' || count(*) || ' epochs ' || string_agg(epoch::text, ',') "
                        + "FROM business_effects WHERE job = '" + job + "' GROUP BY fire_key HAVING count(*) > 1");
        int rows = Integer.parseInt(query("SELECT count(*) FROM business_effects WHERE job = '" + job + "'")
                .get(0));
        int distinct = Integer.parseInt(
                query("SELECT count(DISTINCT b.fire_key) FROM business_effects b JOIN tenure.job_run r "
                                + "ON r.fire_key = b.fire_key AND r.job_key = b.job AND r.status = 'COMPLETED' WHERE b.job = '"
                                + job + "'")
                        .get(0));
        System.out.printf(
                "%s: %d fires, %d business rows, %d fires with a row, %d freezes after the business commit %s, "
                        + "duplicated %s; outcomes of the frozen runs: %s%n",
                mode, FIRES, rows, distinct, froze.size(), froze, duplicated, frozenOutcomes);
        assertThat(froze.size()).as("freezes after a business commit").isGreaterThanOrEqualTo(3);
        assertThat(duplicated)
                .as("fires whose business effect happened more than once")
                .isEmpty();
        assertThat(distinct).as("fires completed with their business row").isEqualTo(FIRES);
        assertThat(rows).as("one business row per fire").isEqualTo(FIRES);
        assertThat(frozenOutcomes)
                .as("a frozen run still reports its completed fire")
                .hasSize(froze.size())
                .allMatch(l -> l.contains(" EXECUTED ") && l.endsWith(" true"));
    }

    /**
     * A run that is one transaction ({@link JobCoordinator#runInTransaction}), whose epoch is checked at the end only:
     * every process freezes itself (SIGSTOP, 3.5 s, TTL 2 s) inside that transaction, after its business insert and
     * before the completion, on its 2nd, 6th, 10th... execution. No frozen transaction may commit (its lease ran out
     * meanwhile, and another process usually ran the fire): one business row per fire.
     */
    @ParameterizedTest
    @EnumSource(
            value = JobCoordinator.Mode.class,
            names = {"VALKEY", "DATABASE"})
    void oneTransactionRuns_frozenBeforeTheirCompletion_everyFireTakesEffectExactlyOnce(JobCoordinator.Mode mode)
            throws Exception {
        String job = "exactly-once-tx-" + mode.name().toLowerCase();
        List<List<String>> output = runNodes(mode, job, "tx");
        List<String> froze = new ArrayList<>();
        List<String> frozenRuns = new ArrayList<>();
        for (int i = 0; i < output.size(); i++) {
            List<String> lines = output.get(i);
            List<String> mine = lines.stream()
                    .filter(l -> l.startsWith("FROZE "))
                    .map(l -> l.substring(6))
                    .toList();
            assertThat(mine).as("node n%d froze at least once", i + 1).isNotEmpty();
            froze.addAll(mine);
            lines.stream().filter(l -> l.startsWith("FROZEN_RUN ")).forEach(frozenRuns::add);
            assertThat(lines)
                    .as("every fire settled on every node")
                    .filteredOn(l -> l.startsWith("OUTCOME "))
                    .hasSize(FIRES)
                    .allMatch(l -> l.contains(" EXECUTED ") || l.contains(" SKIPPED_ALREADY_DONE "));
        }
        List<String> duplicated = query("SELECT fire_key || ' x' || count(*) FROM business_effects WHERE job = '" + job
                + "' GROUP BY fire_key HAVING count(*) > 1");
        int rows = Integer.parseInt(query("SELECT count(*) FROM business_effects WHERE job = '" + job + "'")
                .get(0));
        int fromFrozen = Integer.parseInt(query("SELECT count(*) FROM business_effects b JOIN tenure.job_run r "
                        + "ON r.fire_key = b.fire_key AND r.job_key = b.job WHERE b.job = '" + job
                        + "' AND b.epoch <> r.epoch")
                .get(0));
        System.out.printf(
                "%s, one transaction: %d fires, %d business rows, %d freezes before the completion %s, "
                        + "duplicated %s, rows under an epoch other than the completing run's %d; frozen runs: %s%n",
                mode, FIRES, rows, froze.size(), froze, duplicated, fromFrozen, frozenRuns);
        assertThat(froze.size()).as("freezes inside the run's transaction").isGreaterThanOrEqualTo(3);
        assertThat(duplicated)
                .as("fires whose business effect happened more than once")
                .isEmpty();
        assertThat(rows).as("one business row per fire").isEqualTo(FIRES);
        assertThat(fromFrozen)
                .as("business rows committed under an epoch that did not complete the fire")
                .isZero();
        // Refused at the check, because the lease had expired or another process had claimed the job: LEASE_LOST, or
        // FAILED when nobody had claimed the job yet when the refused run recorded its outcome (its expired epoch was
        // still the job's latest, so the refusal is recorded as a failure: a suite run saw 1 of 16), or LEASE_LOST with
        // a LeaseLostException naming the epoch that ended when the next claim ended the frozen, idle transaction of
        // the expired lease (StaleFences; the SQLException of the dead connection is its cause; a suite run saw 4 of
        // 12). Never EXECUTED: a frozen run's transaction never commits.
        assertThat(frozenRuns)
                .as("no frozen run committed")
                .hasSize(froze.size())
                .allMatch(l -> l.contains(" LEASE_LOST false StaleOwnerException")
                        || l.contains(" FAILED false StaleOwnerException")
                        || l.contains(" LEASE_LOST false LeaseLostException"));
        assertThat(frozenRuns.stream().filter(l -> l.contains(" LEASE_LOST ")).count())
                .as("frozen runs refused by the epoch check at the end of their transaction")
                .isGreaterThanOrEqualTo(3);
    }

    private static List<List<String>> runNodes(JobCoordinator.Mode mode, String job, String... extra) throws Exception {
        long startAt = System.currentTimeMillis() + Timing.scaledMillis(6000);
        List<JvmProcess> nodes = new ArrayList<>();
        List<List<String>> output = new ArrayList<>();
        try {
            for (int i = 1; i <= 3; i++) {
                List<String> args = new ArrayList<>(List.of(
                        mode.name(),
                        mode == JobCoordinator.Mode.DATABASE ? "-" : servers.valkey.address(),
                        servers.db.jdbcUrl(),
                        servers.db.username(),
                        servers.passwordArg(),
                        job,
                        Integer.toString(FIRES),
                        Long.toString(INTERVAL_MS),
                        Long.toString(startAt),
                        Long.toString(TTL_MS),
                        Long.toString(FREEZE_MS),
                        "n" + i));
                args.addAll(List.of(extra));
                nodes.add(JvmProcess.start(ExactlyOnceWorker.class, args.toArray(String[]::new)));
            }
            for (JvmProcess n : nodes) {
                n.awaitStdoutLine("DONE"::equals, Timing.scaled(Duration.ofSeconds(120)));
                output.add(n.stdoutLines());
            }
        } finally {
            nodes.forEach(JvmProcess::close);
        }
        return output;
    }

    private static List<String> query(String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = servers.db.dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }
}
