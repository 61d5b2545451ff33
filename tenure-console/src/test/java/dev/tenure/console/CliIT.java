package dev.tenure.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenure.LeaderElection;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Acceptance 2: every CLI command, as a table and as {@code --json}, on runs made by the real coordinator (in this
 * process, database mode) and a real leader election.
 */
class CliIT {

    private static final String PID = "pid " + ProcessHandle.current().pid() + " (";
    private static PostgresDatabase db;
    private static CliFixture cli;
    private static Tenure tenure;
    private static LeaderElection reporter;

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(CliIT.class);
        cli = new CliFixture(db);
        tenure = Tenure.builder().dataSource(cli.pool()).leaseDefaults(LeaseOptions.ofTtl(Duration.ofSeconds(5))).build();
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
        reporter = tenure.leaderElection("reporter", LeaseOptions.ofTtl(Duration.ofSeconds(30)), "node-a",
                new LeaderElection.Listener() {
                    @Override
                    public void elected(long term) {
                    }

                    @Override
                    public void revoked(String reason) {
                    }
                });
        reporter.start();
        await().atMost(Duration.ofSeconds(10)).until(reporter::isLeader);
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
        assertThat(t.lines()).anySatisfy(l -> assertThat(l).matches("reporter +role +pid \\d+ \\(\\w{4}\\) +\\d{16} +\\d+\\.\\d s"));

        JsonNode jobs = ok(cli.run("status", "--json")).json().get("jobs");
        JsonNode settle = find(jobs, "job", "settle");
        assertThat(settle.get("kind").asText()).isEqualTo("job");
        assertThat(settle.get("held").asBoolean()).isFalse();
        assertThat(settle.get("lastOutcome").asText()).isEqualTo("FAILED");
        assertThat(settle.get("firesLastHour").asLong()).isEqualTo(6);
        JsonNode role = find(jobs, "job", "reporter");
        assertThat(role.get("node").asText()).startsWith(PID);
        assertThat(role.get("leaseLeftMillis").asLong()).isBetween(1L, 30_000L);
    }

    @Test
    void runs_pagesNewestFirst_withACursor_asTableAndJson() {
        CliFixture.Result t = ok(cli.run("runs", "settle", "--limit", "4"));
        assertThat(t.lines().get(0)).matches("FIRE +NODE +EPOCH +STATUS +DURATION +ATTEMPT +STARTED +WHAT HAPPENED");
        assertThat(t.lines().subList(1, 5)).extracting(l -> l.split(" +")[0]).containsExactly("day-5", "day-4", "day-3", "day-2");
        assertThat(t.lines().get(1)).contains(PID, " FAILED ", "IllegalStateException: boom on day 5");
        assertThat(t.lines().get(2)).matches("day-4 +pid \\d+ \\(\\w{4}\\) +\\d{16} +COMPLETED +\\d+ ms +1 +20\\d\\d-.*");
        Matcher next = Pattern.compile("next page: --before (\\S+)").matcher(t.lines().get(5));
        assertThat(next.matches()).as(t.out()).isTrue();

        JsonNode page = ok(cli.run("runs", "settle", "--limit", "4", "--before", next.group(1), "--json")).json();
        assertThat(page.get("job").asText()).isEqualTo("settle");
        assertThat(page.get("next").isNull()).isTrue();
        assertThat(page.get("runs")).extracting(r -> r.get("fire").asText()).containsExactly("day-1", "day-0");
        assertThat(page.get("runs").get(0).get("status").asText()).isEqualTo("COMPLETED");
        assertThat(page.get("runs").get(0).get("durationMillis").asLong()).isGreaterThanOrEqualTo(20);
        assertThat(page.get("runs").get(0).get("takeover").asBoolean()).isFalse();

        CliFixture.Result bad = cli.run("runs", "settle", "--before", "yesterday");
        assertThat(bad.exit()).isEqualTo(1);
        assertThat(bad.err()).contains("error: cursor must be <microseconds>_<run id>");
    }

    @Test
    void leaders_showTheRoleItsLeaderAndTerm_asTableAndJson() {
        CliFixture.Result t = ok(cli.run("leaders"));
        assertThat(t.lines().get(0)).matches("ROLE +LEADER +TERM +SINCE +LEASE LEFT");
        long term = reporter.term().orElseThrow();
        assertThat(t.lines()).anySatisfy(l -> assertThat(l).matches("reporter +pid \\d+ \\(\\w{4}\\) +" + term
                + " +20\\d\\d-\\d\\d-\\d\\d \\S+Z +\\d+\\.\\d s"));
        assertThat(t.out()).doesNotContain("settle");

        JsonNode l = find(ok(cli.run("leaders", "--json")).json().get("leaders"), "role", "reporter");
        assertThat(l.get("term").asLong()).isEqualTo(term);
        assertThat(l.get("node").asText()).startsWith(PID);
        assertThat(l.get("leader").asText()).isNotBlank();
    }

    @Test
    void ttlAdvice_isThreeTimesP99_atLeastOneSecond_asTableAndJson() {
        CliFixture.Result t = ok(cli.run("ttl-advice", "settle"));
        assertThat(t.lines().get(0)).matches("JOB +FINISHED RUNS +P99 +MAX +SUGGESTED TTL");
        assertThat(t.lines().get(1)).matches("settle +6 +\\d+ ms +\\d+ ms +1\\.0 s");
        assertThat(t.lines().get(2)).isEqualTo("rule: " + TtlAdviceCommand.RULE);

        JsonNode all = ok(cli.run("ttl-advice", "--json")).json();
        assertThat(all.get("rule").asText()).isEqualTo(TtlAdviceCommand.RULE);
        JsonNode settle = find(all.get("jobs"), "job", "settle");
        assertThat(settle.get("samples").asInt()).isEqualTo(6);
        assertThat(settle.get("suggestedTtlMillis").asLong()).isEqualTo(1000);
        assertThat(settle.get("p99Millis").asLong()).isBetween(20L, 333L);
        assertThat(find(all.get("jobs"), "job", "nightly").get("suggestedTtlMillis").isNull()).as("one run: no advice").isTrue();
    }

    @Test
    void release_bumpsTheEpochAndAudits_asTableAndJson() {
        CliFixture.Result t = ok(cli.run("release", "nightly", "--reason", "stuck after the deploy", "--actor", "ops:ann"));
        Matcher m = Pattern.compile("released nightly: epoch (\\d+) -> (\\d+) \\(nobody held it\\), audit #(\\d+) by ops:ann")
                .matcher(t.out().strip());
        assertThat(m.matches()).as(t.out()).isTrue();
        assertThat(Long.parseLong(m.group(2))).isGreaterThan(Long.parseLong(m.group(1)));

        JsonNode again = ok(cli.run("release", "nightly", "--reason", "once more", "--json")).json();
        assertThat(again.get("oldEpoch").asLong()).isEqualTo(Long.parseLong(m.group(2)));
        assertThat(again.get("newEpoch").asLong()).isGreaterThan(again.get("oldEpoch").asLong());
        assertThat(again.get("auditId").asLong()).isGreaterThan(Long.parseLong(m.group(3)));
        assertThat(again.get("actor").asText()).startsWith("cli:");

        CliFixture.Result none = cli.run("release", "no-such-job", "--reason", "x");
        assertThat(none.exit()).isEqualTo(1);
        assertThat(none.err()).contains("error: no job 'no-such-job' in Tenure's tables");
    }

    @Test
    void migrate_createsASchema_thenHasNothingToDo_asTableAndJson() {
        CliFixture.Result t = ok(cli.run("migrate", "--schema", "scratch_cli"));
        assertThat(t.out().strip()).matches("schema scratch_cli at version \\d+ \\([1-9]\\d* migrations applied now\\)");
        JsonNode j = ok(cli.run("migrate", "--schema", "scratch_cli", "--json")).json();
        assertThat(j.get("schema").asText()).isEqualTo("scratch_cli");
        assertThat(j.get("applied").asInt()).isZero();
    }

    @Test
    void prune_deletesOldFinishedRunsInBatches_asTableAndJson() throws Exception {
        cli.sql("UPDATE tenure.job_run SET started_at = started_at - interval '40 days' WHERE run_id IN "
                + "(SELECT run_id FROM tenure.job_run WHERE job_key = 'old-job' ORDER BY started_at LIMIT 3)");
        CliFixture.Result t = ok(cli.run("prune", "--older-than", "30d", "--batch", "2"));
        assertThat(t.out().strip()).matches("deleted 3 finished runs started before 20\\S+ \\S+Z \\(\\d+ jobs, \\d+ batches of at most 2\\)");
        JsonNode j = ok(cli.run("prune", "--older-than", "P30D", "--json")).json();
        assertThat(j.get("deleted").asLong()).isZero();
        assertThat(j.get("jobs").asInt()).isGreaterThanOrEqualTo(4);
        assertThat(ok(cli.run("runs", "old-job", "--json")).json().get("runs")).hasSize(1);

        CliFixture.Result young = cli.run("prune", "--older-than", "10m");
        assertThat(young.exit()).isEqualTo(1);
        assertThat(young.err()).contains("--older-than must be at least 1 h");
    }

    private static CliFixture.Result ok(CliFixture.Result r) {
        System.out.print("[cli] " + r.out());   // the real output, for the README and the eye
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
