package dev.tenure.bench;

import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/** Number formatting and plain-text tables. */
public final class Format {

    private Format() {}

    static String ms(Duration d) {
        double ms = d.toNanos() / 1e6;
        return (ms == Math.rint(ms) ? String.valueOf((long) ms) : String.format(Locale.ROOT, "%.2f", ms)) + " ms";
    }

    public static String num(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (Math.abs(v) >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static String micros(long nanos) {
        return num(nanos / 1000.0);
    }

    private static final Properties VERSIONS = new Properties();

    static {
        try (InputStream in = Format.class.getResourceAsStream("/bench-versions.properties")) {
            if (in != null) {
                VERSIONS.load(in);
            }
        } catch (Exception ignored) {
            // versions are informational
        }
    }

    /** Version a library was built with (from the filtered bench-versions.properties), or "?". */
    static String libVersion(String name) {
        return VERSIONS.getProperty(name, "?");
    }

    /** "name version, name version, ..." for every library in bench-versions.properties. */
    public static String libVersions() {
        StringBuilder sb = new StringBuilder();
        for (String k : new java.util.TreeSet<>(VERSIONS.stringPropertyNames())) {
            sb.append(sb.length() == 0 ? "" : ", ").append(k).append(' ').append(VERSIONS.getProperty(k));
        }
        return sb.toString();
    }

    /** A plain-text table: first column left-aligned, the rest right-aligned. */
    public static final class Table {
        private final List<String[]> rows = new ArrayList<>();
        private final String[] header;

        public Table(String... header) {
            this.header = header;
        }

        public void row(Object... cells) {
            String[] r = new String[header.length];
            for (int i = 0; i < r.length; i++) {
                r[i] = i < cells.length && cells[i] != null ? cells[i].toString() : "";
            }
            rows.add(r);
        }

        public void separator() {
            rows.add(null);
        }

        public String render() {
            int[] w = new int[header.length];
            for (int i = 0; i < w.length; i++) {
                w[i] = header[i].length();
            }
            for (String[] r : rows) {
                if (r != null) {
                    for (int i = 0; i < w.length; i++) {
                        w[i] = Math.max(w[i], r[i].length());
                    }
                }
            }
            StringBuilder sb = new StringBuilder();
            line(sb, header, w);
            StringBuilder rule = new StringBuilder();
            for (int i = 0; i < w.length; i++) {
                rule.append(i == 0 ? "" : "  ").append("-".repeat(w[i]));
            }
            sb.append(rule).append('\n');
            for (String[] r : rows) {
                if (r == null) {
                    sb.append('\n');
                } else {
                    line(sb, r, w);
                }
            }
            return sb.toString();
        }

        private static void line(StringBuilder sb, String[] r, int[] w) {
            for (int i = 0; i < w.length; i++) {
                if (i > 0) {
                    sb.append("  ");
                }
                String pad = " ".repeat(w[i] - r[i].length());
                sb.append(i == 0 ? r[i] + pad : pad + r[i]);
            }
            int end = sb.length();
            while (end > 0 && sb.charAt(end - 1) == ' ') {
                end--;
            }
            sb.setLength(end);
            sb.append('\n');
        }
    }
}
