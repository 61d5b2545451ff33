package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.db.TenureAdmin;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** How the page and the CLI show MISSED fires and late runs: the timeline's marks, the fire list's words. */
class MissedFireViewsTest {

    private static final String NODE_A = "3f9a1c07e2d4b8a1-100-1.1";
    private static final String NODE_B = "77aa1c07e2d4b8a1-200-1.1";
    private static final String SWEEPER = "300@host#0badf00d";
    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");

    private static Views.Run run(int second, String owner, String status, Instant startedAt, String error) {
        return new Views.Run(
                UUID.randomUUID(),
                T0.plusSeconds(second).toString(),
                7,
                owner,
                null,
                status,
                1,
                null,
                startedAt,
                startedAt.plusMillis(40),
                error,
                false,
                null);
    }

    /** Fires 0 and 1 by node A, 2..4 MISSED (recorded at 6.2 s by the sweeper), 5 caught up at 6.3 s by node A. */
    private static List<Views.Run> outage() {
        List<Views.Run> runs = new ArrayList<>();
        runs.add(run(0, NODE_A, "COMPLETED", T0.plusMillis(10), null));
        runs.add(run(1, NODE_A, "COMPLETED", T0.plusMillis(1010), null));
        for (int k = 2; k <= 4; k++) {
            runs.add(run(k, SWEEPER, "MISSED", T0.plusMillis(6200), "no node ran it; policy SKIP"));
        }
        runs.add(run(5, NODE_A, "COMPLETED", T0.plusMillis(6300), null));
        return runs;
    }

    @Test
    void timeline_marksEachMissedFireAtItsFireTime_inALaneOfItsOwn_withoutAHandover() {
        String svg = TimelineSvg.render(outage(), T0.plusSeconds(7));
        Matcher m = Pattern.compile("<path class=\"missed-mark\" d=\"M([\\d.]+) ([\\d.]+) ")
                .matcher(svg);
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        while (m.find()) {
            xs.add(Double.parseDouble(m.group(1)));
            ys.add(Double.parseDouble(m.group(2)));
        }
        assertThat(xs).as("one mark per MISSED fire").hasSize(3);
        assertThat(xs.get(1) - xs.get(0))
                .as("a second apart, as their fire times")
                .isCloseTo(xs.get(2) - xs.get(1), org.assertj.core.data.Offset.offset(0.2))
                .isGreaterThan(50);
        assertThat(ys).as("one lane").containsOnly(ys.get(0));
        assertThat(svg)
                .contains("<title>" + T0.plusSeconds(2) + " · MISSED · no node ran it; policy SKIP</title>")
                .contains(">missed<")
                .doesNotContain(">" + SWEEPER + "<");
        assertThat(svg)
                .as("the sweeper ran nothing: no lane, no hand-over to it")
                .doesNotContain("class=\"handover\"");
        assertThat(svg.split("class=\"run st-", -1))
                .as("bars for the runs only")
                .hasSize(4);
    }

    @Test
    void timeline_drawsARotationBetweenRunsOfTwoNodes_acrossMissedFires_neutrally() {
        List<Views.Run> runs = outage();
        runs.set(5, run(5, NODE_B, "COMPLETED", T0.plusMillis(6300), null));
        String svg = TimelineSvg.render(runs, T0.plusSeconds(7));
        assertThat(svg.split("class=\"rotation\"", -1)).hasSize(2);
        assertThat(svg).doesNotContain("class=\"handover\"").contains("rotation: pid 100 (3f9a) → pid 200 (77aa)");
    }

    @Test
    void story_saysWhyAFireWasMissed_andHowLateACatchUpStarted() {
        List<Views.Run> runs = outage();
        assertThat(JobPage.story(runs.get(2)))
                .isEqualTo("recorded MISSED by the sweeper " + SWEEPER + ": no node ran it; policy SKIP");
        assertThat(JobPage.story(runs.get(5))).isEqualTo("started 1.3 s after its fire time.");
        assertThat(JobPage.story(runs.get(1))).as("10 ms late is on time").isEmpty();
        Views.Run oddKey = new Views.Run(
                UUID.randomUUID(), "day-5", 7, NODE_A, null, "COMPLETED", 1, null, T0, T0, null, false, null);
        assertThat(JobPage.story(oddKey)).as("a fire key that is no time").isEmpty();
    }

    @Test
    void rotations_skipMissedFires_whichNobodyRan() {
        List<Views.Run> newestFirst = new ArrayList<>(outage());
        java.util.Collections.reverse(newestFirst);
        assertThat(ConsoleQueries.withRotations(newestFirst))
                .extracting(Views.Run::rotation)
                .containsOnly(false);
        newestFirst.set(0, run(5, NODE_B, "COMPLETED", T0.plusMillis(6300), null));
        assertThat(ConsoleQueries.withRotations(newestFirst))
                .extracting(Views.Run::rotation)
                .containsExactly(true, false, false, false, false, false);
    }

    private static TenureAdmin.ScheduleState schedule(int overdue, long missedLastHour, String previous) {
        return new TenureAdmin.ScheduleState(
                "billing",
                "fixed-rate",
                "PT1S",
                "catch-up (newest 5, max age PT1H, grace PT1S)",
                "coordinator",
                "100@node-a",
                T0,
                previous,
                previous == null ? null : "200@node-b",
                previous == null ? null : T0.plusSeconds(1),
                T0.plusSeconds(5),
                T0.plusSeconds(6),
                "100@node-a#01",
                T0.plusSeconds(7),
                overdue,
                3,
                T0.plusSeconds(6),
                T0.plusSeconds(5),
                missedLastHour);
    }

    @Test
    void jobList_highlightsAScheduledJobWithMissedOrOverdueFires_andShowsLastSuccessAndNextDue() {
        Views.Job billing = new Views.Job("billing", "job", 9, null, null, null, null, "COMPLETED", "f", T0, 4, null);
        Views.Job quiet = new Views.Job("quiet", "job", 9, null, null, null, null, "COMPLETED", "f", T0, 4, null);
        Views.Job plain = new Views.Job("plain", "job", 9, null, null, null, null, "COMPLETED", "f", T0, 4, null);
        String html = OverviewPage.render(
                "",
                List.of(billing, plain, quiet),
                java.util.Map.of("billing", schedule(0, 3, null), "quiet", schedule(0, 0, null)),
                java.util.Map.of(),
                false,
                List.of(),
                java.util.Optional.empty(),
                0,
                T0);
        assertThat(rowOf(html, "billing"))
                .startsWith("<tr class=\"free attention\">")
                .contains("<td>" + Html.time(T0.plusSeconds(5)) + "</td><td>" + Html.time(T0.plusSeconds(7)) + "</td>"
                        + "<td class=\"num alert\">3</td><td class=\"num\">0</td>");
        assertThat(rowOf(html, "quiet"))
                .startsWith("<tr class=\"free\">")
                .contains("<td class=\"num\">0</td><td class=\"num\">0</td>");
        assertThat(rowOf(html, "plain"))
                .as("no schedule: empty cells")
                .endsWith("<td></td><td></td><td class=\"num\"></td><td class=\"num\"></td></tr>");
        assertThat(OverviewPage.render(
                        "",
                        List.of(billing),
                        java.util.Map.of("billing", schedule(2, 0, null)),
                        java.util.Map.of(),
                        false,
                        List.of(),
                        java.util.Optional.empty(),
                        0,
                        T0))
                .contains("free attention")
                .contains("<td class=\"num alert\">2</td></tr>");
    }

    @Test
    void jobPage_showsTheScheduleAndAReplacedOne_andMissedRowsWithTheirReason() {
        Views.Job billing = new Views.Job("billing", "job", 9, null, null, null, null, "COMPLETED", "f", T0, 4, null);
        List<Views.Run> newestFirst = new ArrayList<>(outage());
        java.util.Collections.reverse(newestFirst);
        Views.Summary summary = new Views.Summary("billing", outage(), 0, 0, 0, 0, 3);
        String html = JobPage.render(new JobPage.Model(
                "",
                billing,
                "database",
                java.util.Optional.of(schedule(0, 3, "fixed-rate PT2S")),
                summary,
                new Views.RunPage("billing", newestFirst, java.util.Optional.empty()),
                true,
                List.of(),
                JobPage.Actions.OFF,
                0,
                T0.plusSeconds(7)));
        assertThat(html)
                .contains(
                        "<section class=\"schedule attention\"><h2>Schedule</h2>",
                        "<dt>schedule</dt><dd>fixed-rate PT1S</dd>",
                        "<dt>registered by</dt><dd>100@node-a</dd>",
                        "<dt>replaced schedule</dt><dd>fixed-rate PT2S (registered by 200@node-b; replaced at "
                                + Html.time(T0.plusSeconds(1)) + " by version 1: instances still on the earlier "
                                + "version fire by it until they are replaced)</dd>",
                        "<dt>missed in the last hour</dt><dd class=\"alert\">3</dd>",
                        "<b>3</b> missed fires");
        assertThat(html)
                .contains("<tr class=\"missed\"><td>" + T0.plusSeconds(4) + "</td><td class=\"muted\">not run</td>"
                        + "<td class=\"num\"></td><td><span class=\"badge st-MISSED\">MISSED</span></td>");
        assertThat(html).contains("recorded MISSED by the sweeper " + SWEEPER + ": no node ran it; policy SKIP");
        String without = JobPage.render(new JobPage.Model(
                "",
                billing,
                "database",
                java.util.Optional.empty(),
                summary,
                new Views.RunPage("billing", newestFirst, java.util.Optional.empty()),
                true,
                List.of(),
                JobPage.Actions.OFF,
                0,
                T0.plusSeconds(7)));
        assertThat(without).doesNotContain("<h2>Schedule</h2>");
    }

    private static TenureAdmin.ScheduleState stateOf(
            String state, String reason, java.time.Instant checkAt, String sweepError, java.time.Instant readAt) {
        return new TenureAdmin.ScheduleState(
                "billing",
                "fixed-rate",
                "PT5M",
                "catch-up",
                "coordinator",
                "web-2/shop/9",
                T0,
                null,
                null,
                null,
                T0,
                T0,
                "300@host#0badf00d",
                null,
                0,
                0,
                null,
                null,
                0,
                "shop",
                state,
                reason == null ? null : T0.plusSeconds(60),
                reason,
                reason == null ? null : "web-1/shop/7",
                2,
                T0.minusSeconds(3600),
                T0.plusSeconds(30),
                checkAt,
                sweepError,
                readAt);
    }

    @Test
    void scheduleSection_showsAPausedStateWithWhy_theVersionsAndSpans_andAnUnsweptOneNeedsAttention() {
        dev.tenure.db.ScheduleHistory history = new dev.tenure.db.ScheduleHistory(
                "billing",
                List.of(
                        new dev.tenure.db.ScheduleHistory.Version(
                                2, "fixed-rate", "PT5M", "catch-up", "web-2/shop/9", T0.minusSeconds(3600), null),
                        new dev.tenure.db.ScheduleHistory.Version(
                                1, "fixed-rate", "PT1M", "catch-up", "web-1/shop/7", null, T0.minusSeconds(3600))),
                List.of(new dev.tenure.db.ScheduleHistory.Span(
                        "PAUSED", T0.plusSeconds(60), null, "paused in Quartz", "web-1/shop/7")));
        String paused = ScheduleSection.render(
                stateOf("PAUSED", "paused in Quartz", T0.plusSeconds(60), null, T0.plusSeconds(120)), history);
        assertThat(paused)
                .startsWith("<section class=\"schedule\">")
                .contains(
                        "<dt>state</dt><dd class=\"state-PAUSED\">PAUSED since " + Html.time(T0.plusSeconds(60))
                                + " by web-1/shop/7: paused in Quartz</dd>",
                        "<dt>application</dt><dd>shop</dd>",
                        "<dt>version</dt><dd>2 (since " + Html.time(T0.minusSeconds(3600)) + ")</dd>",
                        "<dt>last seen</dt><dd>" + Html.time(T0.plusSeconds(30)) + " (1 min 30 s ago)</dd>",
                        "<li>paused since " + T0.plusSeconds(60) + " by web-1/shop/7: paused in Quartz</li>",
                        "<table class=\"versions\">",
                        "<tr><td class=\"num\">2</td><td>fixed-rate PT5M</td><td>" + Html.time(T0.minusSeconds(3600))
                                + "</td><td>now</td><td>web-2/shop/9</td></tr>",
                        "<tr><td class=\"num\">1</td><td>fixed-rate PT1M</td><td>the start</td>",
                        "<table class=\"spans\">",
                        "<tr><td>PAUSED</td><td>" + Html.time(T0.plusSeconds(60))
                                + "</td><td>now</td><td class=\"story\">paused in Quartz</td><td>web-1/shop/7</td></tr>");

        String unswept = ScheduleSection.render(
                stateOf("ACTIVE", null, T0.plusSeconds(60), "cron expression 'x' does not parse", T0.plusSeconds(600)),
                history);
        assertThat(unswept)
                .startsWith("<section class=\"schedule attention\">")
                .contains(
                        "<dt>state</dt><dd class=\"state-ACTIVE\">ACTIVE</dd>",
                        "<dt>sweep error</dt><dd class=\"alert\">cron expression &#39;x&#39; does not parse</dd>",
                        "<li>its sweep fails: cron expression &#39;x&#39; does not parse</li>",
                        "<li>not swept since " + T0 + "; due for a sweep since " + T0.plusSeconds(60));
    }

    private static String rowOf(String html, String job) {
        Matcher m = Pattern.compile("<tr[^>]*><td><a href=\"/job\\?key=" + job + "\">.*?</tr>")
                .matcher(html);
        assertThat(m.find()).as("row of %s in %s", job, html).isTrue();
        return m.group();
    }
}
