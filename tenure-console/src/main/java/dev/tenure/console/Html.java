package dev.tenure.console;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** HTML text: escaping of every value the pages show, URL parameters, and the formats of times and durations. */
final class Html {

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Html() {}

    /** {@code text} escaped for HTML text and attribute values (quotes included); "" for null. */
    static String esc(Object text) {
        if (text == null) {
            return "";
        }
        String s = text.toString();
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** A URL query parameter value. */
    static String url(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    /** {@code 2026-12-03 04:31:16.120Z}; "" for null. */
    static String time(Instant t) {
        return t == null ? "" : TIME.format(t);
    }

    /** {@code 312 ms}, {@code 4.2 s}, {@code 3 min 5 s}, {@code 2 h 10 min}, {@code 24 h}; "" for null. */
    static String duration(Duration d) {
        if (d == null) {
            return "";
        }
        long ms = d.toMillis();
        if (Math.abs(ms) < 1000) {
            return ms + " ms";
        }
        if (Math.abs(ms) < 60_000) {
            return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return s / 60 + " min " + s % 60 + " s";
        }
        return s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min");
    }
}
