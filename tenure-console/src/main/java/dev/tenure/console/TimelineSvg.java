package dev.tenure.console;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The timeline picture of a job's runs, rendered on the server as inline SVG: one lane per node (process), one bar
 * per run from its start to its end (to now while it runs), coloured by status, and a dashed line with the new epoch
 * where the lease changed hands (a run by another node than the run before it). Every text is escaped; colours come
 * from the page's style sheet (classes {@code st-<STATUS>}, {@code handover}).
 */
final class TimelineSvg {

    private static final int WIDTH = 960;
    private static final int LABEL = 130;
    private static final int LANE = 26;
    private static final int TOP = 22;
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

    private TimelineSvg() {
    }

    /** The SVG element for {@code runs} (any order); a short note instead when there are none. */
    static String render(List<Views.Run> runs, Instant now) {
        if (runs.isEmpty()) {
            return "<p class=\"note\">No runs to draw.</p>";
        }
        List<Views.Run> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparing(Views.Run::startedAt).thenComparing(Views.Run::runId));
        List<String> lanes = sorted.stream().map(Views.Run::node).distinct().toList();
        Instant t0 = sorted.get(0).startedAt();
        Instant t1 = sorted.stream().map(r -> end(r, now)).max(Comparator.naturalOrder()).orElse(now);
        double span = Math.max(1, Duration.between(t0, t1).toMillis());
        double scale = (WIDTH - LABEL - 10) / span;
        int height = TOP + lanes.size() * LANE + 8;
        StringBuilder s = new StringBuilder();
        s.append("<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" viewBox=\"0 0 ").append(WIDTH)
                .append(' ').append(height).append("\" width=\"").append(WIDTH).append("\" height=\"").append(height)
                .append("\"><title>Which node ran which fire, and where the lease changed hands</title>");
        s.append(text(LABEL, 12, "start", CLOCK.format(t0))).append(text(WIDTH - 10, 12, "end", CLOCK.format(t1)));
        for (int i = 0; i < lanes.size(); i++) {
            int y = TOP + i * LANE;
            s.append("<line class=\"lane\" x1=\"").append(LABEL).append("\" x2=\"").append(WIDTH - 10).append("\" y1=\"")
                    .append(y + LANE / 2).append("\" y2=\"").append(y + LANE / 2).append("\"/>");
            s.append(text(LABEL - 6, y + LANE / 2 + 4, "end", lanes.get(i)));
        }
        Views.Run previous = null;
        for (Views.Run r : sorted) {
            double x = LABEL + Duration.between(t0, r.startedAt()).toMillis() * scale;
            double w = Math.max(2, Duration.between(r.startedAt(), end(r, now)).toMillis() * scale);
            int y = TOP + lanes.indexOf(r.node()) * LANE + 4;
            if (previous != null && !previous.node().equals(r.node())) {
                s.append(String.format(java.util.Locale.ROOT, "<line class=\"handover\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\">"
                        + "<title>lease changed hands: %s → %s, epoch %d</title></line>", x, x, TOP - 4, height - 4,
                        Html.esc(previous.node()), Html.esc(r.node()), r.epoch()));
            }
            s.append(String.format(java.util.Locale.ROOT, "<rect class=\"run st-%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                    + "height=\"%d\" rx=\"2\"><title>%s · %s · epoch %d · %s · %s</title></rect>", Html.esc(r.status()), x, y,
                    w, LANE - 8, Html.esc(r.fireKey()), Html.esc(r.node()), r.epoch(), Html.esc(r.status()),
                    Html.esc(Html.duration(r.duration()))));
            previous = r;
        }
        return s.append("</svg>").toString();
    }

    private static Instant end(Views.Run r, Instant now) {
        return r.finishedAt() != null ? r.finishedAt() : (now.isAfter(r.startedAt()) ? now : r.startedAt());
    }

    private static String text(int x, int y, String anchor, String content) {
        return "<text x=\"" + x + "\" y=\"" + y + "\" text-anchor=\"" + anchor + "\">" + Html.esc(content) + "</text>";
    }
}
