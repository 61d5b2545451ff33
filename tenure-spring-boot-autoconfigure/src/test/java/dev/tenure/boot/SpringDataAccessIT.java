package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.tenure.JobContext;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.boot.app.DataAccessApp;
import dev.tenure.boot.app.FailingTemplateSettlement;
import dev.tenure.boot.app.OuterTransactionSettlement;
import dev.tenure.boot.app.TemplateSettlement;
import dev.tenure.boot.app.TestApps;
import dev.tenure.boot.app.UnrecordedSettlement;
import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.Timing;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.UnexpectedRollbackException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Spring's data access around and inside coordinated runs, in a real Boot application (Boot's Hikari pool, Flyway,
 * scheduler and transaction manager) on real Postgres and valkey-server:
 * <ul>
 * <li>{@code JdbcTemplate} and {@code JdbcClient} inside {@code completeInTransaction}, with no Spring transaction,
 *     write on the completion's own connection: they roll back when the work throws or the holder is stale, and
 *     commit with the completion;</li>
 * <li>a {@code @Transactional} service or a {@code TransactionTemplate} around a run: the work and the completion join
 *     that transaction, and the outcome is recorded (and the leases released) when it ends;</li>
 * <li>a fire whose outcome cannot be recorded after the method ran is reported as such, with the method's own
 *     exception.</li>
 * </ul>
 */
class SpringDataAccessIT {

    static BootServers servers;
    static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() {
        servers = BootServers.start(SpringDataAccessIT.class);
        app = TestApps.start(DataAccessApp.class, servers);
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        servers.close();
    }

    @Test
    void jdbcTemplateAndJdbcClient_insideTheCompletion_withoutTransactional_rollBackWhenTheWorkThrows()
            throws Exception {
        FailingTemplateSettlement failing = app.getBean(FailingTemplateSettlement.class);
        String failed = "SELECT count(*) FROM tenure.job_runs WHERE job_key = 'failing-template-settlement' "
                + "AND status = 'FAILED'";
        failing.on(true);
        try {
            await().atMost(Timing.scaled(Duration.ofSeconds(30))).until(() -> servers.queryLong(failed) >= 3);
        } finally {
            failing.on(false);
        }
        await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                .until(() -> servers.queryLong("SELECT count(*) FROM "
                                + "tenure.job_run WHERE job_key = 'failing-template-settlement' AND status = 'RUNNING'")
                        == 0);
        long fires = servers.queryLong(failed);
        long rows = servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance LIKE 'failing-%'");
        System.out.println("fires FAILED: " + fires + ", rows they wrote through JdbcTemplate and JdbcClient that "
                + "committed: " + rows);
        assertThat(fires).isGreaterThanOrEqualTo(3);
        assertThat(rows)
                .as("rows of FAILED fires, written through JdbcTemplate and JdbcClient")
                .isZero();
    }

    @Test
    void jdbcTemplate_insideTheCompletion_withoutTransactional_commitsWithIt_inTheSameTransaction() throws Exception {
        TemplateSettlement settlement = app.getBean(TemplateSettlement.class);
        settlement.settle();
        String[] ids = settlement.transactions().split(" / ");
        System.out.println("transaction of JdbcTemplate / of the completion: " + settlement.transactions());
        assertThat(ids[0]).as("JdbcTemplate's transaction is the completion's").isEqualTo(ids[1]);
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = 'template'"))
                .isEqualTo(1);
        assertThat(servers.queryLong("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'template-settlement' "
                        + "AND status = 'COMPLETED'"))
                .isEqualTo(1);
    }

    /** As Spring's transaction manager does, the completion binds the proxy's target: JdbcTemplate on either joins. */
    @Test
    void aTransactionAwareProxyGivenToTheCompletion_jdbcTemplateOnThePoolAndOnTheProxyJoinIt() throws Exception {
        DataSource pool = app.getBean(DataSource.class);
        TransactionAwareDataSourceProxy proxy = new TransactionAwareDataSourceProxy(pool);
        JdbcTemplate onPool = new JdbcTemplate(pool);
        JdbcTemplate onProxy = new JdbcTemplate(proxy);
        RunOutcome<String> o = app.getBean(Tenure.class)
                .coordinator()
                .run(
                        "proxy-template",
                        "p1",
                        RunPolicy.skipFire(),
                        run -> run.completeInTransaction(proxy, c -> {
                            try (Statement s = c.createStatement();
                                    ResultSet rs = s.executeQuery("SELECT txid_current()")) {
                                rs.next();
                                return onPool.queryForObject("SELECT txid_current()", Long.class) + " / "
                                        + onProxy.queryForObject("SELECT txid_current()", Long.class) + " / "
                                        + rs.getLong(1);
                            }
                        }));
        System.out.println("transaction of JdbcTemplate on the pool / on the proxy / of the completion: " + o.result());
        assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(o.result().split(" / "))
                .as("one transaction")
                .containsOnly(o.result().split(" / ")[2]);
    }

    /**
     * Code that opens a Spring transaction (REQUIRED) inside the completion participates in it, as in any Spring
     * transaction: its writes share the completion's commit, and marking it rollback-only rolls the fire back.
     */
    @Test
    void aTransactionTemplateInsideTheCompletion_participates_andItsRollbackOnlyRollsTheFireBack() throws Exception {
        DataSource dataSource = app.getBean(DataSource.class);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        TransactionTemplate tx = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
        RunOutcome<Boolean> o = app.getBean(Tenure.class)
                .coordinator()
                .run(
                        "participant",
                        "p1",
                        RunPolicy.skipFire(),
                        run -> run.completeInTransaction(
                                dataSource,
                                c -> tx.execute(s -> {
                                    jdbc.update(
                                            "INSERT INTO settlement_entry (slot, epoch, instance) VALUES ('p1', ?, 'participant')",
                                            run.epoch());
                                    s.setRollbackOnly();
                                    return s.isNewTransaction();
                                })));
        long rows = servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = 'participant'");
        System.out.println("a participant marked the completion rollback-only: " + o.status() + " (" + o.error()
                + "), rows " + rows);
        assertThat(o.status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(o.error()).isInstanceOf(UnexpectedRollbackException.class);
        assertThat(rows).isZero();
        assertThat(servers.queryLong("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'participant' "
                        + "AND status = 'FAILED'"))
                .isEqualTo(1);
    }

    @Test
    void runInTransaction_jdbcTemplateWritesOfAHolderTakenOverDuringTheWork_rollBack() throws Exception {
        Tenure tenure = app.getBean(Tenure.class);
        JdbcTemplate jdbc = new JdbcTemplate(app.getBean(DataSource.class));
        TenureAdmin admin = app.getBean(TenureAdmin.class);
        RunOutcome<Integer> o = tenure.coordinator()
                .runInTransaction(
                        "stale-template", "f1", RunPolicy.skipFire(), app.getBean(DataSource.class), (run, c) -> {
                            int n = jdbc.update(
                                    "INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, "
                                            + "'stale-template')",
                                    run.fireKey(),
                                    run.epoch());
                            admin.forceRelease(
                                    "stale-template", "test: the holder is presumed dead", "SpringDataAccessIT");
                            return n;
                        });
        long rows = servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = 'stale-template'");
        System.out.println("taken over during the work: " + o.status() + ", JdbcTemplate rows committed: " + rows);
        assertThat(o.status()).isEqualTo(RunOutcome.Status.LEASE_LOST);
        assertThat(rows).as("the stale holder's JdbcTemplate row").isZero();
    }

    @Test
    void transactionalService_aroundRunInTransaction_theFireCompletesWhenTheServiceCommits() throws Exception {
        OuterTransactionSettlement service = app.getBean(OuterTransactionSettlement.class);
        long started = System.nanoTime();
        Throwable thrown = catchThrowable(() -> {
            RunOutcome<Integer> o = service.settle("outer-service", "f1", false);
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(o.completedInTransaction()).isTrue();
        });
        System.out.printf(
                "@Transactional service around runInTransaction: %s after %d ms%n",
                thrown == null ? "returned" : thrown, (System.nanoTime() - started) / 1_000_000);
        assertThat(thrown).as("the service's call").isNull();
        assertFireCompletedAndJobFree("outer-service", "f1");
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE slot = 'f1' "
                        + "AND instance IN ('outer-before', 'outer-work')"))
                .isEqualTo(2);
        RunOutcome<Integer> next = service.settle("outer-service", "f2", false);
        assertThat(next.status())
                .as("the next fire runs at once: the job is free")
                .isEqualTo(RunOutcome.Status.EXECUTED);
    }

    @Test
    void transactionalService_rollingBackAfterTheRun_leavesTheFireFailed_andNothingWritten() throws Exception {
        OuterTransactionSettlement service = app.getBean(OuterTransactionSettlement.class);
        Throwable thrown = catchThrowable(() -> service.settle("outer-rollback", "r1", true));
        System.out.println("@Transactional service failing after the run: " + thrown);
        assertThat(thrown).isInstanceOf(IllegalStateException.class).hasMessage("the service fails after the run");
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE slot = 'r1'"))
                .isZero();
        assertThat(servers.queryLong("SELECT count(*) FROM tenure.job_runs WHERE job_key = 'outer-rollback' "
                        + "AND status = 'FAILED'"))
                .as("the fire, rolled back with the service")
                .isEqualTo(1);
        assertThat(servers.queryLong("SELECT count(*) FROM tenure.job_execution WHERE job_key = 'outer-rollback' "
                        + "AND owner IS NULL"))
                .as("the job is free")
                .isEqualTo(1);
        RunOutcome<Integer> retry = service.settle("outer-rollback", "r1", false);
        assertThat(retry.status()).as("the failed fire runs again").isEqualTo(RunOutcome.Status.EXECUTED);
        assertFireCompletedAndJobFree("outer-rollback", "r1");
    }

    @Test
    void transactionTemplate_aroundRunAndCompleteInTransaction_theFireCompletesWhenTheTemplateCommits()
            throws Exception {
        Tenure tenure = app.getBean(Tenure.class);
        DataSource dataSource = app.getBean(DataSource.class);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        TransactionTemplate tx = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
        long started = System.nanoTime();
        Throwable thrown = catchThrowable(() -> {
            RunOutcome<Integer> o = tx.execute(s -> tenure.coordinator()
                    .run(
                            "outer-template",
                            "t1",
                            RunPolicy.skipFire(),
                            run -> run.completeInTransaction(
                                    dataSource,
                                    c -> jdbc.update(
                                            "INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, 'outer-template')",
                                            run.fireKey(),
                                            run.epoch()))));
            assertThat(o.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        });
        System.out.printf(
                "TransactionTemplate around run + completeInTransaction: %s after %d ms%n",
                thrown == null ? "returned" : thrown, (System.nanoTime() - started) / 1_000_000);
        assertThat(thrown).as("the template's call").isNull();
        assertFireCompletedAndJobFree("outer-template", "t1");
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = 'outer-template'"))
                .isEqualTo(1);
    }

    /** How the nested scope (a savepoint) that completed the fire ends. */
    enum NestedEnd {
        THROWS,
        MARKED_ROLLBACK_ONLY
    }

    /**
     * A completion rolled back to its savepoint does not count. The nested scope ({@code PROPAGATION_NESTED}) completes
     * the fire through {@code completeInTransaction} and then rolls back to its savepoint; the outer transaction
     * commits. After that commit the fire's run row is still RUNNING, so the run is FAILED and the fire runs again,
     * its completion's row written once.
     */
    @ParameterizedTest
    @EnumSource(NestedEnd.class)
    void aCompletionRolledBackToItsSavepoint_isNotCounted_theRunFails_andTheFireRunsAgain(NestedEnd end)
            throws Exception {
        Tenure tenure = app.getBean(Tenure.class);
        DataSource dataSource = app.getBean(DataSource.class);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        TransactionTemplate outer = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
        TransactionTemplate nested = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
        nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        String job = "nested-" + end.name().toLowerCase(java.util.Locale.ROOT);
        RunOutcome<Object> first = tenure.coordinator()
                .run(
                        job,
                        "n1",
                        RunPolicy.skipFire(),
                        run -> outer.execute(s -> {
                            jdbc.update(
                                    "INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, ?)",
                                    run.fireKey(),
                                    run.epoch(),
                                    job + "-outer");
                            try {
                                nested.executeWithoutResult(n -> {
                                    settle(run, dataSource, jdbc, job);
                                    if (end == NestedEnd.THROWS) {
                                        throw new NestedStepFailed();
                                    }
                                    n.setRollbackOnly();
                                });
                            } catch (NestedStepFailed e) {
                                // the outer transaction goes on without the nested step, as a savepoint allows
                            }
                            return null;
                        }));
        System.out.println("completion rolled back to its savepoint (" + end + "): " + first.status() + " ("
                + first.error() + "), run row " + runStatus(job, "n1"));
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = '" + job + "-outer'"))
                .as("the outer transaction committed")
                .isEqualTo(1);
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = '" + job + "'"))
                .as("the completion's business row, rolled back with its savepoint")
                .isZero();
        assertThat(runStatus(job, "n1")).as("the ledger").isEqualTo("FAILED");
        assertThat(first.status()).isEqualTo(RunOutcome.Status.FAILED);
        assertThat(first.error()).hasMessageContaining("rolled back");

        RunOutcome<Object> again = tenure.coordinator().run(job, "n1", RunPolicy.skipFire(), run -> {
            settle(run, dataSource, jdbc, job);
            return null;
        });
        assertThat(again.status()).as("the same fire, run again").isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(runStatus(job, "n1")).isEqualTo("COMPLETED");
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = '" + job + "'"))
                .as("the completion's business row, written once")
                .isEqualTo(1);
    }

    /**
     * As above, with the run inside the outer transaction: the outcome is recorded when that transaction ends, and
     * the completion rolled back to its savepoint leaves the fire FAILED, to run again.
     */
    @Test
    void aRunInsideTheOuterTransaction_itsCompletionRolledBackToASavepoint_leavesTheFireFailed() throws Exception {
        Tenure tenure = app.getBean(Tenure.class);
        DataSource dataSource = app.getBean(DataSource.class);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        TransactionTemplate outer = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
        TransactionTemplate nested = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
        nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
        String job = "nested-inside";
        RunOutcome<Object> meanwhile =
                outer.execute(s -> tenure.coordinator().run(job, "n1", RunPolicy.skipFire(), run -> {
                    nested.executeWithoutResult(n -> {
                        settle(run, dataSource, jdbc, job);
                        n.setRollbackOnly();
                    });
                    return null;
                }));
        System.out.println("run inside the outer transaction, completion rolled back to its savepoint: returned "
                + meanwhile.status() + " before the commit, run row " + runStatus(job, "n1"));
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = '" + job + "'"))
                .isZero();
        assertThat(runStatus(job, "n1")).as("the ledger").isEqualTo("FAILED");
        RunOutcome<Object> again = tenure.coordinator().run(job, "n1", RunPolicy.skipFire(), run -> {
            settle(run, dataSource, jdbc, job);
            return null;
        });
        assertThat(again.status()).isEqualTo(RunOutcome.Status.EXECUTED);
        assertThat(servers.queryLong("SELECT count(*) FROM settlement_entry WHERE instance = '" + job + "'"))
                .isEqualTo(1);
    }

    /** The fire's business row and its completion, through {@code completeInTransaction} and {@code JdbcTemplate}. */
    private static void settle(JobContext run, DataSource dataSource, JdbcTemplate jdbc, String instance) {
        try {
            run.completeInTransaction(
                    dataSource,
                    c -> jdbc.update(
                            "INSERT INTO settlement_entry (slot, epoch, instance) VALUES (?, ?, ?)",
                            run.fireKey(),
                            run.epoch(),
                            instance));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final class NestedStepFailed extends RuntimeException {
        NestedStepFailed() {
            super("the nested step fails after the completion");
        }
    }

    private static String runStatus(String job, String fire) throws SQLException {
        try (Connection c = servers.db().dataSource().getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT status FROM tenure.job_runs WHERE job_key = '" + job
                        + "' AND fire_key = '" + fire + "'")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    @Test
    void outcomeNotRecorded_afterTheMethodRan_theWarningSaysItRan_andKeepsTheMethodsException() throws Exception {
        UnrecordedSettlement settlement = app.getBean(UnrecordedSettlement.class);
        Logger logger = (Logger) LoggerFactory.getLogger(Coordinated.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        try (Connection lock = servers.db().dataSource().getConnection()) {
            Thread fire = settlement.gate().callUntilReached(settlement::settle, Timing.scaled(Duration.ofSeconds(20)));
            lock.setAutoCommit(false);
            // the job row, which the outcome updates (the run's row is written with it), locked until the fire is over
            try (Statement s = lock.createStatement()) {
                s.execute("SELECT 1 FROM tenure.job_execution WHERE job_key = 'unrecorded-settlement' FOR UPDATE");
            }
            settlement.gate().open();
            fire.join(Timing.scaledMillis(30_000));
            assertThat(fire.isAlive()).isFalse();
            lock.rollback();
        } finally {
            logger.detachAppender(logged);
        }
        List<ILoggingEvent> warnings = logged.list.stream()
                .filter(e -> e.getFormattedMessage().contains("unrecorded-settlement"))
                .toList();
        warnings.forEach(e -> System.out.println("logged: " + e.getLevel() + " " + e.getFormattedMessage()
                + (e.getThrowableProxy() == null
                        ? ""
                        : " / " + e.getThrowableProxy().getClassName()
                                + ", suppressed "
                                + java.util.Arrays.stream(e.getThrowableProxy().getSuppressed())
                                        .map(p -> p.getClassName() + ": " + p.getMessage())
                                        .toList())));
        assertThat(warnings).singleElement().satisfies(e -> {
            assertThat(e.getFormattedMessage())
                    .contains("ran here")
                    .contains("could not be recorded")
                    .doesNotContain("skipped");
            assertThat(e.getThrowableProxy())
                    .as("the fault, with the method's own exception")
                    .isNotNull();
            assertThat(e.getThrowableProxy().getSuppressed())
                    .anySatisfy(p -> assertThat(p.getMessage()).isEqualTo("the settlement's own failure"));
        });
    }

    private static void assertFireCompletedAndJobFree(String job, String fire) throws Exception {
        assertThat(servers.queryLong("SELECT count(*) FROM tenure.job_runs WHERE job_key = '" + job
                        + "' AND fire_key = '" + fire + "' AND status = 'COMPLETED'"))
                .as("fire " + fire + " of " + job + " COMPLETED")
                .isEqualTo(1);
        assertThat(servers.queryLong(
                        "SELECT count(*) FROM tenure.job_execution WHERE job_key = '" + job + "' AND owner IS NULL"))
                .as("job " + job + " free")
                .isEqualTo(1);
    }
}
