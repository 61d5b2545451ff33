package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenure.db.TenureSchema;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, item 6, in a real headless Chromium, over a ledger as a night of faults leaves it (a 2 s fixed rate; the
 * rows as the coordinator and the sweeper write them):
 *
 * <ul>
 *   <li>{@code +0 s}, {@code +2 s}, {@code +10 s}: completed on time, by node a, then b, then b;
 *   <li>{@code +4 s}: node a froze mid-run; a catch-up by node c took the row over 16 s late (attempt 2, the first
 *       attempt's status ABANDONED as the takeover records it): the frozen attempt was fenced off, then caught up;
 *   <li>{@code +6 s}: node a started it and was killed; a later claim marked it ABANDONED, and the sweeper recorded it
 *       MISSED: it did start, so it is not "not run";
 *   <li>{@code +8 s}: nobody ran it; the sweeper recorded it MISSED 22 s later;
 *   <li>{@code +12 s}: node a started it and was killed; ABANDONED, not run again.
 * </ul>
 *
 * The fire list is in slot order (not start order); each fire is in exactly one bucket of the summary and the buckets
 * add up to the fires; a frozen holder's run says "fenced off" and "caught up"; the timeline draws rotations in a
 * neutral colour and only the hand-over after a lost attempt in red. Screenshot: {@code target/console-semantics.png}.
 */
class ConsoleSemanticsBrowserIT {

    private static final String SWEEPER = "4446@vm#4f999dca";
    private static TestDatabase test;

    @BeforeAll
    static void start() throws Exception {
        test = TestDatabase.forClass(ConsoleSemanticsBrowserIT.class);
        TenureSchema.migrate(test.pool());
        test.sql("INSERT INTO tenure.job_execution (job_key) VALUES ('invoicing')", """
                WITH b AS (SELECT date_trunc('minute', clock_timestamp()) - interval '10 minutes' AS t)
                INSERT INTO tenure.job_run (run_id, job_key, fire_key, epoch, owner, node, status, attempt,
                    previous_status, started_at, finished_at, error)
                SELECT gen_random_uuid(), 'invoicing',
                    to_char((b.t + r.slot * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                    r.epoch, r.owner, r.node, r.status, r.attempt, r.previous, b.t + r.started * interval '1 second',
                    b.t + r.finished * interval '1 second', r.error
                FROM b, (VALUES
                    (0, 11, 'a-1', 'vm/billing/4441', 'COMPLETED', 1, NULL, 0.01, 0.05, NULL),
                    (2, 12, 'b-1', 'vm/billing/4442', 'COMPLETED', 1, NULL, 2.01, 2.05, NULL),
                    (4, 15, 'c-1', 'vm/billing/4443', 'COMPLETED', 2, 'ABANDONED', 20.0, 20.05, NULL),
                    (6, 13, '%1$s', 'vm/billing/4441', 'MISSED', 1, 'ABANDONED', 6.01, 28.0,
                        'its run was abandoned: the lease of a-1 (epoch 13) ended while the run was RUNNING; '
                        || 'not caught up: only the newest 1 overdue fires are'),
                    (8, 13, '%1$s', NULL, 'MISSED', 1, NULL, 30.0, 30.0, 'no node ran it; policy SKIP'),
                    (10, 14, 'b-2', 'vm/billing/4442', 'COMPLETED', 1, NULL, 10.01, 10.05, NULL),
                    (12, 14, 'a-2', 'vm/billing/4441', 'ABANDONED', 1, NULL, 12.01, 19.0,
                        'the lease of a-2 (epoch 14) ended while the run was RUNNING')
                ) AS r(slot, epoch, owner, node, status, attempt, previous, started, finished, error)""".formatted(SWEEPER));
    }

    @AfterAll
    static void stop() {
        test.close();
    }

    @Test
    void theJobPage_tellsEachFiresStoryInSlotOrder_withBucketsThatAddUp_andRotationsDrawnNeutrally() throws Exception {
        String base = test.query("SELECT date_trunc('minute', clock_timestamp()) - interval '10 minutes'");
        List<String> slots = new ArrayList<>();
        for (int s = 12; s >= 0; s -= 2) {
            slots.add(test.query("SELECT to_char(('" + base + "'::timestamptz + interval '" + s + " seconds') "
                    + "AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"));
        }
        try (ConsoleServer server = TenureConsole.builder(test.pool())
                        .refreshEvery(Duration.ZERO)
                        .build()
                        .serve(new InetSocketAddress("127.0.0.1", 0));
                ChromiumTab tab = HeadlessChromium.find().open()) {
            tab.navigate(server.url() + "/job?key=invoicing");
            Map<String, List<String>> fires = new LinkedHashMap<>();
            tab.evaluate("[...document.querySelectorAll('table.runs tbody tr')].map(tr => [...tr.cells]"
                            + ".map(c => c.textContent))")
                    .forEach(r -> {
                        List<String> cells = new ArrayList<>();
                        r.forEach(c -> cells.add(c.asText()));
                        fires.put(cells.get(0), cells);
                    });
            assertThat(fires.keySet()).as("slot order, the latest first").containsExactlyElementsOf(slots);

            List<String> frozen = fires.get(slots.get(4)); // +4 s
            assertThat(frozen.get(3)).isEqualTo("COMPLETED");
            assertThat(frozen.get(7))
                    .as("the frozen attempt's history, then the catch-up")
                    .contains("attempt 1 fenced off")
                    .contains("caught up")
                    .contains("16.0 s after its fire time");
            List<String> startedMissed = fires.get(slots.get(3)); // +6 s
            assertThat(startedMissed.get(1)).as("it did start, on node a").isEqualTo("vm/billing/4441");
            assertThat(startedMissed.get(7))
                    .contains("started by vm/billing/4441", "its holder lost its lease")
                    .doesNotContain("not run");
            assertThat(fires.get(slots.get(2)).get(1)).as("+8 s: nobody ran it").isEqualTo("not run");
            assertThat(fires.get(slots.get(0)).get(7)).as("+12 s: killed").contains("fenced off");

            Map<String, Integer> buckets = new LinkedHashMap<>();
            tab.evaluate("[...document.querySelectorAll('.summary li[data-bucket]')]"
                            + ".map(li => [li.dataset.bucket, li.querySelector('b').textContent])")
                    .forEach(p -> buckets.put(
                            p.get(0).asText(), Integer.parseInt(p.get(1).asText())));
            int total = tab.evaluate("+document.querySelector('.summary .fires').textContent")
                    .asInt();
            assertThat(total).as("7 fires").isEqualTo(7);
            assertThat(buckets.values().stream().mapToInt(Integer::intValue).sum())
                    .as("each fire in exactly one bucket: %s", buckets)
                    .isEqualTo(total);
            assertThat(buckets)
                    .containsEntry("completed", 3)
                    .containsEntry("caught-up", 1)
                    .containsEntry("abandoned", 1)
                    .containsEntry("missed", 2)
                    .containsEntry("rejected-stale", 0)
                    .containsEntry("failed", 0)
                    .containsEntry("running", 0);

            JsonNode lines = tab.evaluate("[...document.querySelectorAll('svg.timeline line.rotation, "
                    + "svg.timeline line.handover')].map(l => [l.getAttribute('class'), getComputedStyle(l).stroke])");
            List<String> rotations = new ArrayList<>();
            List<String> faults = new ArrayList<>();
            lines.forEach(l -> (l.get(0).asText().equals("rotation") ? rotations : faults)
                    .add(l.get(1).asText()));
            assertThat(rotations)
                    .as("a→b and b→a: rotations, neutral")
                    .hasSize(2)
                    .containsOnly("rgb(153, 153, 153)");
            assertThat(faults).as("a→c after a lost attempt: the only red line").containsExactly("rgb(180, 52, 28)");
            tab.screenshotFullPage(Path.of(System.getProperty("tenure.console.target", "target"))
                    .resolve("console-semantics.png"));
        }
    }
}
