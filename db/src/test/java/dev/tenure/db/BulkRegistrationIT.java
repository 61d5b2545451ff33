package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.MissedFirePolicy;
import dev.tenure.spi.ScheduleLedger.Registered;
import dev.tenure.spi.ScheduleLedger.ScheduleRow;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Schedules registered in bulk ({@link JdbcScheduleLedger#registerAll}) leave the ledger exactly as registering them one
 * at a time does, answer each job as {@link JdbcScheduleLedger#register} would, and processes registering the same jobs
 * at once never deadlock or register a job twice.
 */
class BulkRegistrationIT {

    private static Fixture fx;
    private static JdbcScheduleLedger bulk;
    private static JdbcScheduleLedger solo;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(BulkRegistrationIT.class);
        TenureSchema.migrate(fx.pool, "solo");
        TenureSchema.migrate(fx.pool, "race");
        Jdbc jdbc = new Jdbc(fx.pool, Duration.ofSeconds(30));
        bulk = new JdbcScheduleLedger(jdbc, "tenure");
        solo = new JdbcScheduleLedger(jdbc, "solo");
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    private static ScheduleRow row(String job, String expression, String node, Instant firstFire) {
        return new ScheduleRow(
                job,
                "default",
                "fixed-rate",
                expression,
                MissedFirePolicy.skip().withGrace(Duration.ofSeconds(2)),
                "skip",
                "test",
                node,
                firstFire);
    }

    @Test
    void inBulk_theLedgerAndTheAnswersAreThoseOfOneAtATime() {
        Instant first = Instant.parse("2020-01-01T12:00:00Z");
        List<ScheduleRow> round1 = new ArrayList<>();
        for (int i = 0; i < 2100; i++) { // three transactions of REGISTER_BATCH at most
            round1.add(row("job-" + i, "PT10S", "node-a", i % 3 == 0 ? first.plusSeconds(i) : null));
        }
        compare(round1);
        // five schedules nobody registered for a day are retired, in both ledgers alike
        for (String schema : List.of("tenure", "solo")) {
            fx.execute("UPDATE " + schema + ".job_schedule SET seen_at = seen_at - interval '1 day'"
                    + " WHERE job_key IN ('job-1', 'job-2', 'job-3', 'job-4', 'job-5')");
        }
        assertThat(bulk.retireUnseen(Duration.ofHours(1), "test")).hasSize(5);
        assertThat(solo.retireUnseen(Duration.ofHours(1), "test")).hasSize(5);

        List<ScheduleRow> round2 = new ArrayList<>();
        for (int i = 0; i < 2100; i++) {
            String expression = i % 40 == 7 || i == 5 ? "PT20S" : "PT10S"; // changed, job-5 retired and changed
            round2.add(row("job-" + i, expression, i % 2 == 0 ? "node-b" : "node-a", null));
        }
        for (int i = 2100; i < 2200; i++) {
            round2.add(row("job-" + i, "PT10S", "node-b", null));
        }
        Collections.shuffle(round2, new Random(7));
        List<Registered> answers = compare(round2);
        assertThat(answers).filteredOn(Registered::created).hasSize(100);
        assertThat(answers).filteredOn(Registered::reactivated).hasSize(5);
        assertThat(answers).filteredOn(r -> r.version() == 2).hasSize(54); // 53 of i % 40 == 7, and job-5
    }

    /** Registers {@code rows} in bulk in schema tenure and one at a time in schema solo; the same answers and rows. */
    private static List<Registered> compare(List<ScheduleRow> rows) {
        List<Registered> inBulk = bulk.registerAll(rows);
        List<Registered> alone = new ArrayList<>();
        rows.forEach(r -> alone.add(solo.register(r)));
        assertThat(inBulk).hasSize(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            Registered b = inBulk.get(i);
            Registered s = alone.get(i);
            assertThat(b.created()).as(rows.get(i).jobKey()).isEqualTo(s.created());
            assertThat(b.version()).as(rows.get(i).jobKey()).isEqualTo(s.version());
            assertThat(b.reactivated()).as(rows.get(i).jobKey()).isEqualTo(s.reactivated());
            assertThat(b.replaced().map(ScheduleRow::expression))
                    .as(rows.get(i).jobKey())
                    .isEqualTo(s.replaced().map(ScheduleRow::expression));
            assertThat(b.previousAt() == null).isEqualTo(s.previousAt() == null);
        }
        for (String table : List.of(
                "SELECT job_key, kind, expression, policy, integration, registered_by, application, policy_action,"
                        + " max_catch_ups, max_age_ms, grace_ms, version, state, previous_kind, previous_expression,"
                        + " previous_by, state_reason, check_at IS NOT NULL, seen_at = registered_at,"
                        + " swept_until = registered_at,"
                        + " CASE WHEN swept_until < '2021-01-01' THEN swept_until::text ELSE 'since registered' END,"
                        + " version_from = registered_at, state_since IS NULL FROM %s.job_schedule",
                "SELECT job_key, version, kind, expression, policy, registered_by, valid_until IS NULL"
                        + " FROM %s.job_schedule_version",
                "SELECT job_key, state, until_at IS NULL, reason FROM %s.job_schedule_span",
                "SELECT job_key, fencing_token, owner FROM %s.job_execution")) {
            String rowsOf = "SELECT t::text FROM (%s) t ORDER BY 1";
            List<String> b = fx.query(rowsOf.formatted(table.formatted("tenure")));
            List<String> s = fx.query(rowsOf.formatted(table.formatted("solo")));
            assertThat(b).containsExactlyElementsOf(s);
        }
        assertThat(fx.query("SELECT count(*) FROM tenure.job_schedule WHERE job_key = ANY('{"
                        + String.join(
                                ",", rows.stream().map(ScheduleRow::jobKey).toList()) + "}')"))
                .containsExactly(Integer.toString(rows.size()));
        return inBulk;
    }

    @Test
    void processesRegisteringTheSameJobsAtOnce_eachJobOnce_noDeadlock() throws Exception {
        JdbcScheduleLedger race = new JdbcScheduleLedger(new Jdbc(fx.pool, Duration.ofSeconds(30)), "race");
        int threads = 4;
        List<ScheduleRow> rows = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            rows.add(row("r-" + i, "PT10S", "node", null));
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Long>> created = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<ScheduleRow> mine = new ArrayList<>(rows);
                Collections.shuffle(mine, new Random(t));
                created.add(pool.submit(() -> race.registerAll(mine).stream()
                        .filter(Registered::created)
                        .count()));
            }
            long total = 0;
            for (Future<Long> f : created) {
                total += f.get(Timing.scaledMillis(120_000), TimeUnit.MILLISECONDS);
            }
            assertThat(total).as("registrations that created a schedule").isEqualTo(3000);
        } finally {
            pool.shutdownNow();
        }
        assertThat(
                        fx.query(
                                "SELECT concat_ws('|', count(*), count(DISTINCT job_key), max(version)) FROM race.job_schedule"))
                .containsExactly("3000|3000|1");
        assertThat(fx.query("SELECT count(*) FROM race.job_schedule_version")).containsExactly("3000");
    }
}
