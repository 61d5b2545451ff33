package dev.tenure.examples;

import static dev.tenure.examples.ExampleRuns.assertLinesInOrder;
import static dev.tenure.examples.ExampleRuns.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/**
 * Smoke tests: each feature example runs as its command runs it (a fresh JVM, its own Postgres database and
 * valkey-server from the test kit), exits with 0, writes nothing to stderr, and prints its story.
 */
class ExamplesIT {

    @Test
    void plainLock_locksOnce_andHandsOutGrowingTokens() {
        assertLinesInOrder(
                run(PlainLockExample.class),
                "coupon-42 locked; a second tryAcquire got it too: false",
                "runLocked: settled product-7",
                "report token 1",
                "report token 2",
                "ledger-export written under epoch [1-9]\\d*");
    }

    @Test
    void coordinatedJob_runsTheFireOnce_andSkipsItsSecondRun() {
        assertLinesInOrder(
                run(CoordinatedJobExample.class),
                "first run: EXECUTED under epoch [1-9]\\d*, completed in its own transaction: true",
                "second run: SKIPPED_ALREADY_DONE, completed in its own transaction: false",
                "one-transaction run: EXECUTED under epoch [1-9]\\d*, completed in its own transaction: true",
                "settlement rows: 2");
    }

    @Test
    void missedFires_theCatchUpJobRunsThem_theSkipJobRecordsThemMissed() {
        List<String> out = ExampleRuns.runWarning(
                MissedFiresExample.class,
                "WARN MissedFires - \\d+ fires? of 'reports' recorded MISSED, \\S+, policy skip \\(.*\\), why: .* \\(each "
                        + "fire with why in the ledger: `tenure-console missed`\\)");
        List<String> caughtUp =
                out.stream().filter(l -> l.startsWith("caught up ")).toList();
        assertThat(caughtUp)
                .hasSizeGreaterThanOrEqualTo(2)
                .allMatch(l -> l.matches("caught up \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ: EXECUTED"));
        assertLinesInOrder(
                out,
                "settlement: " + caughtUp.size() + " fires caught up, " + caughtUp.size() + " settlement rows",
                "reports: [2-9] fires recorded MISSED");
        long missed = out.stream()
                .filter(l -> l.startsWith("reports: "))
                .map(l -> l.split(" ")[1])
                .mapToLong(Long::parseLong)
                .findFirst()
                .orElseThrow();
        // one WARN line per sweep that recorded fires, however many: their counts add up to the fires recorded
        assertThat(out.stream()
                        .filter(l -> l.startsWith("WARN MissedFires"))
                        .mapToLong(l ->
                                Long.parseLong(l.replaceAll("WARN MissedFires - (\\d+) fires? of 'reports'.*", "$1")))
                        .sum())
                .as("fires in the WARN lines")
                .isEqualTo(missed);
    }

    @Test
    void leaderElection_handsTheRoleOver_underALargerTerm() {
        List<Matcher> m = assertLinesInOrder(
                run(LeaderElectionExample.class),
                "node-a elected, epoch (\\d+)",
                "node-b leads while node-a does: false",
                "node-b elected, epoch (\\d+)",
                "node-b took over; its epoch is larger: true");
        assertThat(Long.parseLong(m.get(2).group(1)))
                .isGreaterThan(Long.parseLong(m.get(0).group(1)));
    }

    @Test
    void quartz_runsEverySlotOnOneNode() {
        List<String> out = run(QuartzExample.class);
        List<String> slots = out.stream()
                .filter(l -> l.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ  .*"))
                .toList();
        assertThat(slots)
                .hasSizeGreaterThanOrEqualTo(3)
                .allMatch(l -> l.matches("\\S+  node-[ab] epoch [1-9]\\d*"), "one node per slot");
        assertLinesInOrder(out, "slots run: " + slots.size() + ", slots run twice: 0");
    }

    @Test
    void batch_launchesOnce_andSkipsTheDoneFire() {
        assertLinesInOrder(
                run(BatchExample.class),
                "first launch: EXECUTED under epoch [1-9]\\d*",
                "second launch: SKIPPED_ALREADY_DONE",
                "payout rows: 50, distinct ids: 50");
    }
}
