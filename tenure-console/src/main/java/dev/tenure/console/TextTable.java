package dev.tenure.console;

import java.util.ArrayList;
import java.util.List;

/** The CLI's readable tables: a header line and rows, columns padded to their widest cell, two spaces apart. */
final class TextTable {

    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    TextTable(String... headers) {
        this.headers = List.of(headers);
    }

    /** Adds a row; null cells print empty. */
    TextTable row(Object... cells) {
        List<String> r = new ArrayList<>();
        for (Object c : cells) {
            r.add(c == null ? "" : c.toString());
        }
        rows.add(r);
        return this;
    }

    /** The table, one line per row (no trailing spaces), or {@code empty} when it has no rows. */
    String render(String empty) {
        if (rows.isEmpty()) {
            return empty + System.lineSeparator();
        }
        int[] width = new int[headers.size()];
        for (List<String> r : withHeaders()) {
            for (int i = 0; i < width.length; i++) {
                width[i] = Math.max(width[i], r.get(i).length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (List<String> r : withHeaders()) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < width.length; i++) {
                line.append(String.format("%-" + width[i] + "s", r.get(i))).append(i + 1 < width.length ? "  " : "");
            }
            b.append(line.toString().stripTrailing()).append(System.lineSeparator());
        }
        return b.toString();
    }

    private List<List<String>> withHeaders() {
        List<List<String>> all = new ArrayList<>();
        all.add(headers);
        all.addAll(rows);
        return all;
    }
}
