package dev.tenure.console;

import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The CLI's {@code --json} output: maps (insertion order kept), lists, strings, numbers, booleans and null, written as
 * JSON; an {@link Instant} as its ISO-8601 string, a {@link Duration} as milliseconds.
 */
final class Json {

    private Json() {}

    static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(b, value);
        return b.toString();
    }

    private static void write(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Number || v instanceof Boolean) {
            b.append(v);
        } else if (v instanceof Duration d) {
            b.append(d.toMillis());
        } else if (v instanceof Map<?, ?> m) {
            b.append('{');
            for (Iterator<? extends Map.Entry<?, ?>> i = m.entrySet().iterator(); i.hasNext(); ) {
                Map.Entry<?, ?> e = i.next();
                string(b, e.getKey().toString());
                b.append(':');
                write(b, e.getValue());
                b.append(i.hasNext() ? "," : "");
            }
            b.append('}');
        } else if (v instanceof List<?> l) {
            b.append('[');
            for (int i = 0; i < l.size(); i++) {
                write(b, l.get(i));
                b.append(i + 1 < l.size() ? "," : "");
            }
            b.append(']');
        } else {
            string(b, v.toString());
        }
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}
