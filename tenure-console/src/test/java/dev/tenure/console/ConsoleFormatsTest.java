package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ConsoleFormatsTest {

    @Test
    void cursor_roundTripsAnyFireKey_andRejectsJunk() {
        for (String key : java.util.List.of("2026-12-03T04:31:16.123456Z", "day-5", "a b/c?d&e=é", "x..y")) {
            Cursor c = new Cursor(key);
            assertThat(Cursor.parse(c.encode())).isEqualTo(c);
            assertThat(c.encode()).matches("k[A-Za-z0-9_-]+");
        }
        assertThatThrownBy(() -> Cursor.parse("12_x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cursor must be k<fire key in base64url>");
        assertThatThrownBy(() -> Cursor.parse("k!!")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Cursor.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void durations_readShortAndIsoForms() {
        DurationConverter d = new DurationConverter();
        assertThat(d.convert("30d")).isEqualTo(Duration.ofDays(30));
        assertThat(d.convert("12h")).isEqualTo(Duration.ofHours(12));
        assertThat(d.convert("90m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(d.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(d.convert("PT1H")).isEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> d.convert("a week")).hasMessageContaining("not a duration");
        assertThat(Html.duration(Duration.ofMillis(312))).isEqualTo("312 ms");
        assertThat(Html.duration(Duration.ofMillis(4200))).isEqualTo("4.2 s");
        assertThat(Html.duration(Duration.ofSeconds(185))).isEqualTo("3 min 5 s");
        assertThat(Html.duration(Duration.ofMinutes(130))).isEqualTo("2 h 10 min");
        assertThat(Html.duration(Duration.ofHours(24))).isEqualTo("24 h");
    }

    @Test
    void nodes_nameTheProcessOfATenureOwnerId() {
        assertThat(Nodes.of("3f9a1c07e2d4b8a1-12345-2.42")).isEqualTo("pid 12345 (3f9a)");
        assertThat(Nodes.of("3f9a1c07e2d4b8a1-12345-7.1")).isEqualTo(Nodes.of("3f9a1c07e2d4b8a1-12345-2.42"));
        assertThat(Nodes.of("node-a")).isEqualTo("node-a");
        assertThat(Nodes.of("q:3f9a1c07e2d4b8a1-12345-2.")).isEqualTo("turn passed to pid 12345 (3f9a)");
        assertThat(Nodes.of(null)).isNull();
    }

    @Test
    void json_escapesStrings_andWritesDurationsAsMillis() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("s", "a\"b\\c\nd\u0001");
        m.put("d", Duration.ofSeconds(2));
        m.put("n", null);
        m.put("l", List.of(1, true));
        assertThat(Json.write(m)).isEqualTo("{\"s\":\"a\\\"b\\\\c\\nd\\u0001\",\"d\":2000,\"n\":null,\"l\":[1,true]}");
    }

    @Test
    void textTable_padsColumns_withoutTrailingSpaces() {
        String t = new TextTable("A", "LONG").row("xyz", null).row("1", "2").render("none");
        assertThat(t.lines()).containsExactly("A    LONG", "xyz", "1    2");
        assertThat(new TextTable("A").render("none")).isEqualTo("none" + System.lineSeparator());
    }

    @Test
    void ttlAdvice_isThreeTimesP99_withAOneSecondFloor() {
        List<Views.Run> runs = new java.util.ArrayList<>();
        Instant t = Instant.parse("2026-12-03T00:00:00Z");
        for (int i = 1; i <= 100; i++) {
            runs.add(new Views.Run(
                    UUID.randomUUID(),
                    "f" + i,
                    1,
                    "o",
                    null,
                    "COMPLETED",
                    1,
                    null,
                    t,
                    t.plusMillis(i * 10L),
                    null,
                    false,
                    null));
        }
        TtlAdvice a = TtlAdvice.of("job", runs).orElseThrow();
        assertThat(a.p99()).isEqualTo(Duration.ofMillis(990));
        assertThat(a.suggested()).isEqualTo(Duration.ofMillis(2970));
        assertThat(TtlAdvice.of("job", runs.subList(0, 4))).isEmpty();
        assertThat(TtlAdvice.of("job", runs.subList(0, 5)).orElseThrow().suggested())
                .isEqualTo(Duration.ofSeconds(1));
        for (String status : List.of("ABANDONED", "REJECTED_STALE", "FAILED")) {
            runs.add(new Views.Run(
                    UUID.randomUUID(), status, 2, "o", null, status, 1, null, t, t.plusSeconds(30), null, false, null));
        }
        assertThat(TtlAdvice.of("job", runs).orElseThrow())
                .as("COMPLETED runs only")
                .satisfies(x -> assertThat(x.samples()).isEqualTo(100))
                .satisfies(x -> assertThat(x.max()).isEqualTo(Duration.ofMillis(1000)));
    }

    @Test
    void timelineLaneLabels_keepShortNodeNames_andCutLongOnesInTheMiddle_withTheWholeNameAsTooltip() {
        assertThat(TimelineSvg.laneLabel(124, 20, "web-3/invoicing/22418"))
                .isEqualTo("<text x=\"124\" y=\"20\" text-anchor=\"end\"><title>web-3/invoicing/22418</title>"
                        + "web-3/invoicing/22418</text>");
        String pod = "invoicing-7d9f8b6c4-x2k9p/invoicing/1";
        String label = TimelineSvg.laneLabel(124, 20, pod);
        assertThat(label).contains("<title>" + pod + "</title>");
        String shown = label.substring(label.indexOf("</title>") + 8, label.lastIndexOf("</text>"));
        assertThat(shown)
                .hasSize(TimelineSvg.LABEL_CHARS)
                .startsWith("invoicing")
                .endsWith("invoicing/1")
                .contains("…");
        assertThat(TimelineSvg.laneLabel(0, 0, "<b>")).contains("&lt;b&gt;").doesNotContain("<b>");
    }
}
