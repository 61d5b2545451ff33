package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenure.LeaderElection;
import dev.tenure.LeaseOptions;
import dev.tenure.MissedFirePolicy;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Schedule;
import dev.tenure.ScheduledJob;
import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 2: every CLI command, as a table and as {@code --json}, on runs made by the real coordinator (in this
 * process, database mode) and a real leader election. The node is named ({@code Tenure.builder().nodeName}); every
 * table and JSON document shows that name, not the owner's pid.
 */
class CliIT {

    private static final String NODE =
            "web-3/invoicing/" + ProcessHandle.current().pid();
    private static final String OTHER_NODE =
            "web-4/invoicing/" + ProcessHandle.current().pid();
    private static PostgresDatabase db;
    private static CliFixture cli;
    private static Tenure tenure;
    private static LeaderElection reporter;

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(CliIT.class);
        cli = new CliFixture(db);
        tenure = Tenure.builder()
                .dataSource(cli.pool())
                .leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(5)))
                .nodeName(NODE)
                .build();
        for (int k = 0; k < 6; k++) {
            int day = k;
            RunOutcome<Integer> o = tenure.coordinator().run("settle", "day-" + k, RunPolicy.skipFire(), ctx -> {
                Thread.sleep(20);
                if (day == 5) {
                    throw new IllegalStateException("boom on day 5");
                }
                return ctx.completeInTransaction(cli.pool(), c -> 1);
            });
            assertThat(o.status()).isEqualTo(day == 5 ? RunOutcome.Status.FAILED : RunOutcome.Status.EXECUTED);
        }
        for (String job : List.of("nightly", "old-job", "old-job", "old-job", "old-job")) {
            tenure.coordinator().run(job, "f-" + System.nanoTime(), RunPolicy.skipFire(), ctx -> 1);
        }
        reporter = tenure.leaderElection(
                "reporter", LeaseOptions.ofTtl(Duration.ofSeconds(30)), "node-a", new LeaderElection.Listener() {
                    @Override
                    public void elected(long term) {}

                    @Override
                    public void revoked(String reason) {}
                });
        reporter.start();
        await().atMost(Timing.scaled(Duration.ofSeconds(10))).until(reporter::isLeader);
    }

    @AfterAll
    static void stop() throws Exception {
        tenure.close();
        cli.close();
        db.close();
    }

    @Test
    void status_listsJobsAndRoles_asTableAndJson() {
        CliFixture.Result t = ok(cli.run("status"));
        assertThat(t.lines().get(0)).matches("JOB +KIND +HOLDER +EPOCH +LEASE LEFT +LAST OUTCOME +LAST FIRE +FIRES/H");
        assertThat(t.lines()).anySatisfy(l -> assertThat(l).matches("settle +job +- +\\d{16} +- +FAILED +day-5 +6"));
        assertThat(t.lines())
                .anySatisfy(l ->
                        assertThat(l).matches("reporter +role +" + Pattern.quote(NODE) + " +\\d{16} +\\d+\\.\\d s"));
        assertThat(t.out()).doesNotContain("pid ");

        JsonNode jobs = ok(cli.run("status", "--json")).json().get("jobs");
        JsonNode settle = find(jobs, "job", "settle");
        assertThat(settle.get("kind").asText()).isEqualTo("job");
        assertThat(settle.get("held").asBoolean()).isFalse();
        assertThat(settle.get("lastOutcome").asText()).isEqualTo("FAILED");
        assertThat(settle.get("firesLastHour").asLong()).isEqualTo(6);
        JsonNode role = find(jobs, "job", "reporter");
        assertThat(role.get("node").asText()).isEqualTo(NODE);
        assertThat(role.get("owner").asText())
                .as("the owner id stays, for fencing")
                .doesNotContain(NODE);
        assertThat(role.get("leaseLeftMillis").asLong()).isBetween(1L, 30_000L); // unscaled: a TTL
    }

    @Test
    void runs_pagesNewestFirst_withACursor_asTableAndJson() {
        CliFixture.Result t = ok(cli.run("runs", "settle", "--limit", "4"));
        assertThat(t.lines().get(0))
                .matches("FIRE +NODE +EPOCH +STATUS +DURATION +ATTEMPT +STARTED +WHAT HAPPENED +TRACE");
        assertThat(t.lines().subList(1, 5))
                .extracting(l -> l.split(" +")[0])
                .containsExactly("day-5", "day-4", "day-3", "day-2");
        assertThat(t.lines().get(1)).contains(NODE, " FAILED ", "IllegalStateException: boom on day 5");
        assertThat(t.lines().get(2))
                .matches("day-4 +" + Pattern.quote(NODE) + " +\\d{16} +COMPLETED +\\d+ ms +1 +20\\d\\d-.*");
        Matcher next =
                Pattern.compile("next page: --before (\\S+)").matcher(t.lines().get(5));
        assertThat(next.matches()).as(t.out()).isTrue();

        JsonNode page = ok(cli.run("runs", "settle", "--limit", "4", "--before", next.group(1), "--json"))
                .json();
        assertThat(page.get("job").asText()).isEqualTo("settle");
        assertThat(page.get("next").isNull()).isTrue();
        assertThat(page.get("runs")).extracting(r -> r.get("fire").asText()).containsExactly("day-1", "day-0");
        assertThat(page.get("runs").get(0).get("status").asText()).isEqualTo("COMPLETED");
        assertThat(page.get("runs").get(0).get("durationMillis").asLong()).isGreaterThanOrEqualTo(20);
        assertThat(page.get("runs").get(0).get("node").asText()).isEqualTo(NODE);
        assertThat(page.get("runs").get(0).get("rotation").asBoolean()).isFalse();
        assertThat(page.get("runs").get(0).get("incident").asBoolean()).isFalse();

        CliFixture.Result bad = cli.run("runs", "settle", "--before", "yesterday");
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).contains("error: cursor must be k<fire key in base64url>");
    }

    @Test
    void runs_ofTwoNamedNodes_showTheirNames_andCallANodeChangeARotation_notAnIncident() {
        try (Tenure other =
                Tenure.builder().dataSource(cli.pool()).nodeName(OTHER_NODE).build()) {
            for (int k = 0; k < 4; k++) {
                Tenure t = k % 2 == 0 ? tenure : other;
                assertThat(t.coordinator()
                                .run("rotating", "r-" + k, RunPolicy.skipFire(), ctx -> 1)
                                .status())
                        .isEqualTo(RunOutcome.Status.EXECUTED);
            }
        }
        CliFixture.Result t = ok(cli.run("runs", "rotating"));
        assertThat(t.lines().subList(1, 5))
                .extracting(l -> l.split(" +")[1])
                .containsExactly(OTHER_NODE, NODE, OTHER_NODE, NODE);
        assertThat(t.lines().subList(1, 4)).allSatisfy(l -> assertThat(l).contains("rotation: another node"));
        assertThat(t.out()).doesNotContain("pid ", "takeover");

        JsonNode runs = ok(cli.run("runs", "rotating", "--json")).json().get("runs");
        assertThat(runs).extracting(r -> r.get("node").asText()).containsExactly(OTHER_NODE, NODE, OTHER_NODE, NODE);
        assertThat(runs).extracting(r -> r.get("rotation").asBoolean()).containsExactly(true, true, true, false);
        assertThat(runs).extracting(r -> r.get("incident").asBoolean()).containsOnly(false);
        assertThat(runs).allSatisfy(r -> assertThat(r.get("owner").asText()).matches("[0-9a-f]{16}-\\d+-\\d+\\.\\d+"));
    }

    @Test
    void leaders_showTheRoleItsLeaderAndTerm_asTableAndJson() {
        CliFixture.Result t = ok(cli.run("leaders"));
        assertThat(t.lines().get(0)).matches("ROLE +LEADER +TERM +SINCE +LEASE LEFT");
        long epoch = reporter.epoch().orElseThrow();
        assertThat(t.lines())
                .anySatisfy(l -> assertThat(l)
                        .matches("reporter +" + Pattern.quote(NODE) + " +" + epoch
                                + " +20\\d\\d-\\d\\d-\\d\\d \\S+Z +\\d+\\.\\d s"));
        assertThat(t.out()).doesNotContain("settle");

        JsonNode l = find(ok(cli.run("leaders", "--json")).json().get("leaders"), "role", "reporter");
        assertThat(l.get("epoch").asLong()).isEqualTo(epoch);
        assertThat(l.get("node").asText()).isEqualTo(NODE);
        assertThat(l.get("leader").asText()).isNotBlank();
    }

    @Test
    void ttlAdvice_isThreeTimesP99_atLeastOneSecond_asTableAndJson() {
        CliFixture.Result t = ok(cli.run("ttl-advice", "settle"));
        assertThat(t.lines().get(0)).matches("JOB +COMPLETED RUNS +P99 +MAX +SUGGESTED TTL");
        assertThat(t.lines().get(1)).as("day-5 FAILED: not counted").matches("settle +5 +\\d+ ms +\\d+ ms +1\\.0 s");
        assertThat(t.lines().get(2)).isEqualTo("rule: " + TtlAdviceCommand.RULE);

        JsonNode all = ok(cli.run("ttl-advice", "--json")).json();
        assertThat(all.get("rule").asText()).isEqualTo(TtlAdviceCommand.RULE);
        JsonNode settle = find(all.get("jobs"), "job", "settle");
        assertThat(settle.get("samples").asInt()).isEqualTo(5);
        assertThat(settle.get("suggestedTtlMillis").asLong()).isEqualTo(1000);
        assertThat(settle.get("p99Millis").asLong())
                .isBetween(20L, 333L); // unscaled: the rule's 1 s floor holds while 3 x p99 <= 1 s
        assertThat(find(all.get("jobs"), "job", "nightly")
                        .get("suggestedTtlMillis")
                        .isNull())
                .as("one run: no advice")
                .isTrue();
    }

    /**
     * Issue 22, item 7: ttl-advice reads COMPLETED runs only. Five quick runs complete; then two runs freeze for about
     * a second and are force-released: one comes back (REJECTED_STALE), one is still frozen (ABANDONED). Their
     * durations say how long an operator took to notice, not how long the work takes.
     */
    @Test
    void ttlAdvice_countsCompletedRunsOnly_notFrozenRunsThatWereForceReleased() throws Exception {
        for (int k = 0; k < 5; k++) {
            assertThat(tenure.coordinator()
                            .run(
                                    "frozen",
                                    "quick-" + k,
                                    RunPolicy.skipFire(),
                                    ctx -> ctx.completeInTransaction(cli.pool(), c -> 1))
                            .status())
                    .isEqualTo(RunOutcome.Status.EXECUTED);
        }
        TenureAdmin admin = TenureAdmin.create(cli.pool());
        ExecutorService holders = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch back = new CountDownLatch(1);
            Future<RunOutcome<Integer>> stale = holders.submit(() -> frozenRun("stuck-1", back));
            awaitRunning("frozen");
            Thread.sleep(1200);
            admin.forceRelease("frozen", "frozen for a second", "ops:ann");
            back.countDown();
            assertThat(stale.get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS)
                            .status())
                    .isEqualTo(RunOutcome.Status.LEASE_LOST);

            CountDownLatch stillFrozen = new CountDownLatch(1);
            Future<RunOutcome<Integer>> abandoned = holders.submit(() -> frozenRun("stuck-2", stillFrozen));
            awaitRunning("frozen");
            Thread.sleep(1200);
            admin.forceRelease("frozen", "frozen again", "ops:ann");
            assertThat(ok(cli.run("runs", "frozen", "--json")).json().get("runs"))
                    .extracting(r -> r.get("status").asText())
                    .containsExactly(
                            "ABANDONED",
                            "REJECTED_STALE",
                            "COMPLETED",
                            "COMPLETED",
                            "COMPLETED",
                            "COMPLETED",
                            "COMPLETED");

            JsonNode advice =
                    find(ok(cli.run("ttl-advice", "frozen", "--json")).json().get("jobs"), "job", "frozen");
            assertThat(advice.get("samples").asInt()).as("COMPLETED runs only").isEqualTo(5);
            assertThat(advice.get("maxMillis").asLong())
                    .as("no frozen run among them")
                    .isLessThan(1000);
            assertThat(advice.get("suggestedTtlMillis").asLong()).isEqualTo(1000);
            assertThat(ok(cli.run("ttl-advice", "frozen")).lines().get(1))
                    .matches("frozen +5 +\\d+ ms +\\d+ ms +1\\.0 s");
            stillFrozen.countDown();
            assertThat(abandoned
                            .get(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS)
                            .status())
                    .isEqualTo(RunOutcome.Status.LEASE_LOST);
        } finally {
            holders.shutdownNow();
        }
    }

    private static RunOutcome<Integer> frozenRun(String fire, CountDownLatch until) {
        return tenure.coordinator().run("frozen", fire, RunPolicy.skipFire(), ctx -> {
            assertThat(until.await(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS))
                    .isTrue();
            return ctx.completeInTransaction(cli.pool(), c -> 1);
        });
    }

    private static void awaitRunning(String job) {
        await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                .until(() -> TenureAdmin.create(cli.pool())
                        .job(job)
                        .map(j -> j.owner() != null)
                        .orElse(false));
    }

    /**
     * Issue 21, item 3: {@code missed} lists the fires the sweeper recorded MISSED and why, {@code schedules} the
     * scheduled jobs with last success, next due and missed counts; both as a table and as JSON. The job is a real
     * registration (policy SKIP) that no node runs, swept by a real sweeper.
     */
    @Test
    void missedAndSchedules_listWhatTheSweeperRecorded_asTableAndJson() {
        try (Tenure skipping = Tenure.builder()
                .dataSource(cli.pool())
                .sweepInterval(Duration.ofMillis(200))
                .build()) {
            skipping.register(ScheduledJob.of("skipped", Schedule.fixedRate(Duration.ofSeconds(1)), fire -> {
                        throw new AssertionError("SKIP never catches up");
                    })
                    .withPolicy(MissedFirePolicy.skip().withGrace(Duration.ofMillis(300))));
            await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> TenureAdmin.create(cli.pool())
                                    .missedFires("skipped", Duration.ofHours(1), 10)
                                    .size()
                            >= 2);
        }
        String reason = "no node ran it; policy SKIP";
        CliFixture.Result t = ok(cli.run("missed", "--job", "skipped"));
        assertThat(t.lines().get(0)).matches("JOB +FIRE +RECORDED +SWEEPER +REASON");
        List<String> rows = t.lines().subList(1, t.lines().size());
        assertThat(rows)
                .hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(l -> assertThat(l)
                        .matches("skipped +20\\d\\d-\\d\\d-\\d\\dT\\S+Z +20\\d\\d-\\d\\d-\\d\\d \\S+Z +\\S+/"
                                + ProcessHandle.current().pid() + " +" + reason));
        assertThat(rows)
                .extracting(l -> l.split(" +")[1])
                .as("newest first")
                .isSortedAccordingTo(java.util.Comparator.reverseOrder());

        JsonNode json = ok(cli.run("missed", "--job", "skipped", "--json")).json();
        assertThat(json.get("job").asText()).isEqualTo("skipped");
        assertThat(json.get("sinceMillis").asLong())
                .isEqualTo(Duration.ofHours(24).toMillis());
        assertThat(json.get("missed")).hasSize(rows.size()).allSatisfy(m -> {
            assertThat(m.get("job").asText()).isEqualTo("skipped");
            assertThat(m.get("reason").asText()).isEqualTo(reason);
            assertThat(m.get("sweeper").asText())
                    .as("the sweeping node's name")
                    .endsWith("/" + ProcessHandle.current().pid());
            assertThat(java.time.Instant.parse(m.get("recordedAt").asText())).isBefore(java.time.Instant.now());
        });
        assertThat(json.get("missed"))
                .extracting(m -> m.get("fire").asText())
                .containsExactlyElementsOf(
                        rows.stream().map(l -> l.split(" +")[1]).toList());
        assertThat(ok(cli.run("missed", "--json")).json().get("job").isNull())
                .as("every job")
                .isTrue();
        CliFixture.Result one = ok(cli.run("missed", "--limit", "1"));
        assertThat(one.lines()).hasSize(3).last().isEqualTo("(the newest 1; --limit or --since for more)");
        assertThat(ok(cli.run("missed", "--job", "settle")).out().strip())
                .isEqualTo("no fire recorded MISSED in the last 24 h for settle");

        CliFixture.Result zero = cli.run("missed", "--since", "0s");
        assertThat(zero.exit()).isEqualTo(1);
        assertThat(zero.err()).contains("error: within must be positive");
        CliFixture.Result badKey = cli.run("missed", "--job", "two words");
        assertThat(badKey.exit()).isEqualTo(1);
        assertThat(badKey.err()).contains("error: ", "two words");
        assertThat(cli.run("missed", "--since", "a week").exit()).isEqualTo(2);

        CliFixture.Result s = ok(cli.run("schedules"));
        assertThat(s.lines().get(0))
                .matches("JOB +APP +STATE +VERSION +SCHEDULE +POLICY +INTEGRATION +LAST SUCCESS +NEXT DUE +MISSED/H "
                        + "+MISSED +OVERDUE +REGISTERED BY +REPLACED");
        assertThat(s.lines())
                .anySatisfy(l -> assertThat(l)
                        .matches("skipped +default +ACTIVE +1 +fixed-rate PT1S +skip \\(max age PT1H, "
                                + "grace PT0\\.3S\\) +coordinator +20\\S+ \\S+Z +" + rows.size()
                                // overdue now: the process stopped, so fires due since its last sweep are overdue
                                + " +\\d+ +(0|\\d+ since 20\\S+ \\S+Z) +\\S+/"
                                + ProcessHandle.current().pid()));
        JsonNode skipped = find(ok(cli.run("schedules", "--json")).json().get("schedules"), "job", "skipped");
        assertThat(skipped.get("application").asText()).isEqualTo("default");
        assertThat(skipped.get("state").asText()).isEqualTo("ACTIVE");
        assertThat(skipped.get("version").asInt()).isEqualTo(1);
        assertThat(skipped.get("seenAt").asText()).startsWith("20");
        assertThat(skipped.get("sweepError").isNull()).isTrue();
        assertThat(skipped.get("missedLastHour").asLong()).isEqualTo(rows.size());
        assertThat(skipped.get("missedTotal").asLong()).isGreaterThanOrEqualTo(rows.size());
        assertThat(skipped.get("lastSuccessAt").isNull()).as("it never ran").isTrue();
        assertThat(skipped.get("kind").asText()).isEqualTo("fixed-rate");
        assertThat(skipped.get("previousSchedule").isNull()).isTrue();
    }

    @Test
    void release_withActionsAndYes_endsTheHoldersLease_asTableAndJson() {
        tenure.databaseLeases()
                .tryAcquire("held-1", LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .orElseThrow();
        long epoch = epoch("held-1");
        CliFixture.Result t = ok(cli.run(
                "release", "held-1", "--reason", "stuck after the deploy", "--actor", "ops:ann", "--actions", "--yes"));
        Matcher m = Pattern.compile("released held-1: epoch (\\d+) -> (\\d+) \\(was held by " + Pattern.quote(NODE)
                        + "\\), " + "audit #(\\d+) by ops:ann")
                .matcher(t.out().strip());
        assertThat(m.matches()).as(t.out()).isTrue();
        assertThat(Long.parseLong(m.group(1))).isEqualTo(epoch);
        assertThat(Long.parseLong(m.group(2))).isGreaterThan(epoch).isEqualTo(epoch("held-1"));

        tenure.databaseLeases()
                .tryAcquire("held-2", LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .orElseThrow();
        JsonNode j = ok(cli.run("release", "held-2", "--reason", "once more", "--json", "--actions", "--yes"))
                .json();
        assertThat(j.get("oldEpoch").asLong()).isLessThan(j.get("newEpoch").asLong());
        assertThat(j.get("oldOwner").asText()).isNotBlank();
        assertThat(j.get("oldNode").asText()).isEqualTo(NODE);
        assertThat(j.get("auditId").asLong()).isGreaterThan(Long.parseLong(m.group(3)));
        assertThat(j.get("actor").asText()).startsWith("cli:");
    }

    /** Issue 22, item 7: release changes state only with --actions and a confirmation, and only for a held job. */
    @Test
    void release_refusedWithoutActions_withoutConfirmation_andForAJobNobodyHolds_nothingChanges() throws Exception {
        tenure.databaseLeases()
                .tryAcquire("guarded", LeaseOptions.ofTtl(Duration.ofSeconds(30)))
                .orElseThrow();
        long guarded = epoch("guarded");
        long nightly = epoch("nightly");

        CliFixture.Result noActions = cli.run("release", "guarded", "--reason", "x", "--yes");
        assertThat(noActions.exit()).isEqualTo(1);
        assertThat(noActions.err()).contains("error: release changes Tenure's state", "--actions");

        CliFixture.Result unconfirmed = cli.run("release", "guarded", "--reason", "x", "--actions");
        assertThat(unconfirmed.exit()).isEqualTo(1);
        assertThat(unconfirmed.err()).contains("error: release needs a confirmation", "--yes");

        CliFixture.Result free = cli.run("release", "nightly", "--reason", "x", "--actions", "--yes");
        assertThat(free.exit()).isEqualTo(1);
        assertThat(free.err()).contains("error: nobody holds job 'nightly'", "nothing to release");

        CliFixture.Result none = cli.run("release", "no-such-job", "--reason", "x", "--actions", "--yes");
        assertThat(none.exit()).isEqualTo(1);
        assertThat(none.err()).contains("error: no job 'no-such-job' in Tenure's tables");

        CliFixture.Result declined = cli.runTyping("no\n", "release", "guarded", "--reason", "x", "--actions");
        assertThat(declined.exit()).isEqualTo(1);
        assertThat(declined.err())
                .contains(
                        "Force-release job 'guarded', held by " + NODE + " at",
                        "at epoch " + guarded,
                        "Type yes to confirm: ",
                        "error: not confirmed: nothing changed");

        assertThat(epoch("guarded")).isEqualTo(guarded);
        assertThat(epoch("nightly")).isEqualTo(nightly);
        assertThat(auditRows("guarded") + auditRows("nightly"))
                .as("no audit rows")
                .isZero();

        CliFixture.Result confirmed = cli.runTyping("yes\n", "release", "guarded", "--reason", "x", "--actions");
        assertThat(confirmed.exit()).as(confirmed.err()).isZero();
        assertThat(confirmed.out())
                .startsWith("released guarded: epoch " + guarded + " -> ")
                .contains("(was held by " + NODE + ")");
        assertThat(epoch("guarded")).isGreaterThan(guarded);
    }

    /**
     * {@code retire} retires a schedule by hand: state RETIRED with the reason and actor, a RETIRED span, its pending
     * catch-ups dropped, an audit row; refused without {@code --actions} or a confirmation; an unknown job is an error
     * naming it; a retired one is reported and left as it is; a process that registers the job again makes it ACTIVE.
     */
    @Test
    void retire_withActions_retiresTheSchedule_audited_andSchedulesShowsIt_asTableAndJson() throws Exception {
        try (Tenure invoicing = Tenure.builder()
                .dataSource(cli.pool())
                .application("invoicing")
                .nodeName(NODE)
                .build()) {
            invoicing.register(ScheduledJob.of("retiring", Schedule.fixedRate(Duration.ofMinutes(1)), fire -> {}));
        }
        cli.sql("INSERT INTO tenure.job_catch_up (job_key, fire_key, due_at, requested_by) "
                + "VALUES ('retiring', '2026-12-07T10:00:00Z', clock_timestamp(), 'sweeper')");

        CliFixture.Result noActions = cli.run("retire", "retiring", "--reason", "x", "--yes");
        assertThat(noActions.exit()).isEqualTo(1);
        assertThat(noActions.err()).contains("error: retire changes Tenure's state", "--actions");
        CliFixture.Result unconfirmed = cli.run("retire", "retiring", "--reason", "x", "--actions");
        assertThat(unconfirmed.exit()).isEqualTo(1);
        assertThat(unconfirmed.err()).contains("error: retire needs a confirmation", "--yes");
        CliFixture.Result declined = cli.runTyping("no\n", "retire", "retiring", "--reason", "x", "--actions");
        assertThat(declined.err())
                .contains(
                        "Retire the schedule of job 'retiring' (ACTIVE, application invoicing, version 1",
                        "error: not confirmed: nothing changed");
        assertThat(cli.query("SELECT state FROM tenure.job_schedule WHERE job_key = 'retiring'"))
                .isEqualTo("ACTIVE");
        assertThat(auditRows("retiring")).isZero();

        CliFixture.Result t = ok(cli.run(
                "retire",
                "retiring",
                "--reason",
                "moved to the ledger service",
                "--actor",
                "ops:ann",
                "--actions",
                "--yes"));
        assertThat(t.lines().get(0))
                .matches("retired retiring \\(was ACTIVE\\): RETIRED since 20\\S+ \\S+Z by ops:ann: moved to the "
                        + "ledger service, audit #\\d+, 1 pending catch-up\\(s\\) dropped");
        assertThat(t.lines().get(1)).startsWith("note: a process marked this registration at ");
        assertThat(cli.query("SELECT state || '|' || state_reason || '|' || state_by || '|' || (check_at IS NULL) "
                        + "FROM tenure.job_schedule WHERE job_key = 'retiring'"))
                .isEqualTo("RETIRED|moved to the ledger service|ops:ann|true");
        assertThat(cli.query("SELECT string_agg(state || '|' || reason || '|' || set_by || '|' || (until_at IS NULL), "
                        + "',') FROM tenure.job_schedule_span WHERE job_key = 'retiring'"))
                .isEqualTo("RETIRED|moved to the ledger service|ops:ann|true");
        assertThat(cli.query("SELECT count(*) FROM tenure.job_catch_up WHERE job_key = 'retiring'"))
                .isEqualTo("0");
        assertThat(cli.query("SELECT actor || '|' || action || '|' || reason FROM tenure.audit_log "
                        + "WHERE job_key = 'retiring'"))
                .isEqualTo("ops:ann|retire|moved to the ledger service");

        assertThat(ok(cli.run("schedules")).lines())
                .anySatisfy(l -> assertThat(l).matches("retiring +invoicing +RETIRED +1 +fixed-rate PT1M .*"));
        JsonNode retired = find(ok(cli.run("schedules", "--json")).json().get("schedules"), "job", "retiring");
        assertThat(retired.get("state").asText()).isEqualTo("RETIRED");
        assertThat(retired.get("stateReason").asText()).isEqualTo("moved to the ledger service");
        assertThat(retired.get("stateBy").asText()).isEqualTo("ops:ann");
        assertThat(retired.get("checkAt").isNull()).isTrue();

        CliFixture.Result again = ok(cli.run("retire", "retiring", "--reason", "again", "--actions", "--yes"));
        assertThat(again.out().strip())
                .matches("retiring is already RETIRED since 20\\S+ \\S+Z by ops:ann: moved to the ledger service; "
                        + "nothing changed");
        JsonNode j = ok(cli.run("retire", "retiring", "--reason", "again", "--actions", "--yes", "--json"))
                .json();
        assertThat(j.get("retired").asBoolean()).isFalse();
        assertThat(j.get("auditId").isNull()).isTrue();
        assertThat(auditRows("retiring")).as("nothing changed").isEqualTo(1);

        for (String job : List.of("no-such-job", "settle")) {
            CliFixture.Result none = cli.run("retire", job, "--reason", "x", "--actions", "--yes");
            assertThat(none.exit()).isEqualTo(1);
            assertThat(none.err())
                    .contains("error: job '" + job + "' has no schedule in Tenure's ledger (job_schedule): "
                            + "nothing to retire");
        }

        try (Tenure invoicing =
                Tenure.builder().dataSource(cli.pool()).application("invoicing").build()) {
            invoicing.register(ScheduledJob.of("retiring", Schedule.fixedRate(Duration.ofMinutes(1)), fire -> {}));
        }
        assertThat(find(ok(cli.run("schedules", "--json")).json().get("schedules"), "job", "retiring")
                        .get("state")
                        .asText())
                .as("registered again")
                .isEqualTo("ACTIVE");
    }

    private static long epoch(String job) {
        return TenureAdmin.create(cli.pool()).job(job).orElseThrow().epoch();
    }

    private static int auditRows(String job) throws Exception {
        try (var c = cli.pool().getConnection();
                var ps = c.prepareStatement("SELECT count(*) FROM tenure.audit_log WHERE job_key = ?")) {
            ps.setString(1, job);
            try (var rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Test
    void migrate_createsASchema_thenHasNothingToDo_asTableAndJson() {
        CliFixture.Result t = ok(cli.run("migrate", "--schema", "scratch_cli"));
        assertThat(t.out().strip())
                .matches("schema scratch_cli at version \\d+ \\([1-9]\\d* migrations applied now\\)");
        JsonNode j = ok(cli.run("migrate", "--schema", "scratch_cli", "--json")).json();
        assertThat(j.get("schema").asText()).isEqualTo("scratch_cli");
        assertThat(j.get("applied").asInt()).isZero();
    }

    @Test
    void prune_deletesOldFinishedRunsInBatches_asTableAndJson() throws Exception {
        cli.sql("UPDATE tenure.job_run SET started_at = started_at - interval '40 days' WHERE run_id IN "
                + "(SELECT run_id FROM tenure.job_runs WHERE job_key = 'old-job' ORDER BY started_at LIMIT 3)");
        CliFixture.Result t = ok(cli.run("prune", "--older-than", "30d", "--batch", "2"));
        assertThat(t.out().strip())
                .matches(
                        "deleted 3 finished runs started before 20\\S+ \\S+Z \\(\\d+ jobs, \\d+ batches of at most 2\\)");
        JsonNode j = ok(cli.run("prune", "--older-than", "P30D", "--json")).json();
        assertThat(j.get("deleted").asLong()).isZero();
        assertThat(j.get("jobs").asInt()).isGreaterThanOrEqualTo(4);
        assertThat(ok(cli.run("runs", "old-job", "--json")).json().get("runs")).hasSize(1);

        CliFixture.Result young = cli.run("prune", "--older-than", "10m");
        assertThat(young.exit()).isEqualTo(1);
        assertThat(young.err()).contains("--older-than must be at least 1 h");
    }

    private static CliFixture.Result ok(CliFixture.Result r) {
        System.out.print("[cli] " + r.out()); // the real output, for the README and the eye
        assertThat(r.exit()).as("exit; stdout %s; stderr %s", r.out(), r.err()).isZero();
        assertThat(r.err()).isEmpty();
        return r;
    }

    private static JsonNode find(JsonNode array, String field, String value) {
        for (JsonNode n : array) {
            if (n.get(field).asText().equals(value)) {
                return n;
            }
        }
        throw new AssertionError("no " + field + "=" + value + " in " + array);
    }
}
