package dev.tenure.console;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The timeline picture of a job's runs, rendered on the server as inline SVG: one lane per node (process), one bar
 * per run from its start to its end (to now while it runs), coloured by status, and a line where another node ran the
 * next run: grey for a rotation (healthy nodes sharing the fires), red and dashed where it followed a fault (the run took
 * over an attempt whose holder lost its lease, or the run before ended so). Fires recorded MISSED were run by
 * nobody: each is a cross in a lane of its own, "missed", at its fire time when its key is one (the fire keys of
 * Tenure's schedules are ISO-8601 instants), else at the time the sweeper recorded it; they take no part in hand-overs.
 * Every text is escaped; colours come from the page's style sheet (classes {@code st-<STATUS>}, {@code rotation},
 * {@code handover}, {@code missed-mark}).
 */
final class TimelineSvg {

    private static final int WIDTH = 960;
    private static final int LABEL = 130;
    private static final int LANE = 26;
    private static final int TOP = 22;
    private static final int CROSS = 5;
    private static final String MISSED_LANE = "missed";
    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneOffset.UTC);

    private TimelineSvg() {}

    /** The SVG element for {@code runs} (any order); a short note instead when there are none. */
    static String render(List<Views.Run> runs, Instant now) {
        if (runs.isEmpty()) {
            return "<p class=\"note\">No runs to draw.</p>";
        }
        List<Views.Run> sorted =
                new ArrayList<>(runs.stream().filter(r -> !r.missed()).toList());
        sorted.sort(Comparator.comparing(Views.Run::startedAt).thenComparing(Views.Run::runId));
        List<Views.Run> missed =
                new ArrayList<>(runs.stream().filter(Views.Run::missed).toList());
        missed.sort(Comparator.comparing(TimelineSvg::markedAt).thenComparing(Views.Run::fireKey));
        List<String> lanes =
                new ArrayList<>(sorted.stream().map(Views.Run::node).distinct().toList());
        if (!missed.isEmpty()) {
            lanes.add(MISSED_LANE);
        }
        Instant t0 = min(
                sorted.isEmpty() ? null : sorted.get(0).startedAt(), missed.isEmpty() ? null : markedAt(missed.get(0)));
        Instant t1 = t0;
        for (Views.Run r : sorted) {
            t1 = max(t1, end(r, now));
        }
        for (Views.Run r : missed) {
            t1 = max(t1, markedAt(r));
        }
        double span = Math.max(1, Duration.between(t0, t1).toMillis());
        double scale = (WIDTH - LABEL - 10) / span;
        int height = TOP + lanes.size() * LANE + 8;
        StringBuilder s = new StringBuilder();
        s.append("<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" viewBox=\"0 0 ")
                .append(WIDTH)
                .append(' ')
                .append(height)
                .append("\" width=\"")
                .append(WIDTH)
                .append("\" height=\"")
                .append(height)
                .append(
                        "\"><title>Which node ran which fire, where the lease changed hands, and which fires were missed"
                                + "</title>");
        s.append(text(LABEL, 12, "start", CLOCK.format(t0))).append(text(WIDTH - 10, 12, "end", CLOCK.format(t1)));
        for (int i = 0; i < lanes.size(); i++) {
            int y = TOP + i * LANE;
            s.append("<line class=\"lane\" x1=\"")
                    .append(LABEL)
                    .append("\" x2=\"")
                    .append(WIDTH - 10)
                    .append("\" y1=\"")
                    .append(y + LANE / 2)
                    .append("\" y2=\"")
                    .append(y + LANE / 2)
                    .append("\"/>");
            s.append(laneLabel(LABEL - 6, y + LANE / 2 + 4, lanes.get(i)));
        }
        Views.Run previous = null;
        for (Views.Run r : sorted) {
            double x = LABEL + Duration.between(t0, r.startedAt()).toMillis() * scale;
            double w = Math.max(2, Duration.between(r.startedAt(), end(r, now)).toMillis() * scale);
            int y = TOP + lanes.indexOf(r.node()) * LANE + 4;
            if (previous != null && !previous.node().equals(r.node())) {
                boolean fault = fault(previous, r);
                s.append(String.format(
                        Locale.ROOT,
                        "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\">"
                                + "<title>%s: %s → %s, epoch %d</title></line>",
                        fault ? "handover" : "rotation",
                        x,
                        x,
                        TOP - 4,
                        height - 4,
                        fault ? "lease changed hands after a lost attempt" : "rotation",
                        Html.esc(previous.node()),
                        Html.esc(r.node()),
                        r.epoch()));
            }
            s.append(String.format(
                    Locale.ROOT,
                    "<rect class=\"run st-%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                            + "height=\"%d\" rx=\"2\"><title>%s · %s · epoch %d · %s · %s</title></rect>",
                    Html.esc(r.status()),
                    x,
                    y,
                    w,
                    LANE - 8,
                    Html.esc(r.fireKey()),
                    Html.esc(r.node()),
                    r.epoch(),
                    Html.esc(r.status()),
                    Html.esc(Html.duration(r.duration()))));
            previous = r;
        }
        int y = TOP + (lanes.size() - 1) * LANE + LANE / 2;
        for (Views.Run r : missed) {
            double x = LABEL + Duration.between(t0, markedAt(r)).toMillis() * scale;
            s.append(String.format(
                    Locale.ROOT,
                    "<path class=\"missed-mark\" d=\"M%.1f %d L%.1f %d M%.1f %d L%.1f %d\">"
                            + "<title>%s · MISSED · %s</title></path>",
                    x - CROSS,
                    y - CROSS,
                    x + CROSS,
                    y + CROSS,
                    x - CROSS,
                    y + CROSS,
                    x + CROSS,
                    y - CROSS,
                    Html.esc(r.fireLabel()),
                    Html.esc(r.error())));
        }
        return s.append("</svg>").toString();
    }

    /**
     * True if the node change from {@code previous} to {@code r} follows a fault: {@code r} took over an attempt whose
     * holder lost its lease, or {@code previous} ended so. A plain rotation (healthy nodes sharing the fires) is not.
     */
    static boolean fault(Views.Run previous, Views.Run r) {
        return lost(r.previousStatus()) || lost(previous.status());
    }

    private static boolean lost(String status) {
        return "ABANDONED".equals(status) || "REJECTED_STALE".equals(status) || "RUNNING".equals(status);
    }

    /** Where a MISSED fire is drawn: at its fire time if its key is one, else when it was recorded. */
    private static Instant markedAt(Views.Run r) {
        Instant due = r.fireTime();
        return due != null ? due : r.startedAt();
    }

    private static Instant end(Views.Run r, Instant now) {
        return r.finishedAt() != null ? r.finishedAt() : (now.isAfter(r.startedAt()) ? now : r.startedAt());
    }

    private static Instant min(Instant a, Instant b) {
        return a == null ? b : b == null || a.isBefore(b) ? a : b;
    }

    private static Instant max(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    /** Longest lane label drawn whole; a longer node name keeps its start and end around an ellipsis. */
    static final int LABEL_CHARS = 22;

    /** A lane's label, cut in the middle to fit {@link #LABEL_CHARS}, with the whole name as its tooltip. */
    static String laneLabel(int x, int y, String name) {
        String shown = name.length() <= LABEL_CHARS
                ? name
                : name.substring(0, LABEL_CHARS / 2 - 1) + "…" + name.substring(name.length() - LABEL_CHARS / 2);
        return "<text x=\"" + x + "\" y=\"" + y + "\" text-anchor=\"end\"><title>" + Html.esc(name) + "</title>"
                + Html.esc(shown) + "</text>";
    }

    private static String text(int x, int y, String anchor, String content) {
        return "<text x=\"" + x + "\" y=\"" + y + "\" text-anchor=\"" + anchor + "\">" + Html.esc(content) + "</text>";
    }
}
