package dev.tenure.console;

/**
 * Where sign-in sends the browser back to: {@code next} when it is a plain path of the console, otherwise the overview
 * ({@code /}). Browsers parse a {@code Location} by the WHATWG URL standard: they drop tabs and newlines anywhere, trim
 * control characters and spaces at both ends, read {@code \} as {@code /}, and take {@code //host} or
 * {@code scheme:} as another origin. Rather than follow those rules, the console keeps only what none of them can
 * touch: a path of console routes and an optional query and fragment in printable ASCII.
 *
 * <p>The grammar: {@code /} followed by segments of {@code A-Z a-z 0-9 - . _ ~} (no empty, {@code .} or {@code ..}
 * segment, so no {@code //} and no percent sign), then optionally {@code ?query} and {@code #fragment} of RFC 3986
 * query characters, where every {@code %} starts two hex digits that are not a control character. The query may carry
 * an encoded {@code /} or {@code \} ({@code /job?key=billing%2Fnightly}: a job key may contain them); after a path
 * a query cannot change the origin. Stateless and thread-safe.
 */
final class ReturnPath {

    /** Longer values are refused: console links are short. */
    static final int MAX_LENGTH = 2048;

    private static final String QUERY_PUNCTUATION = "-._~!$&'()*+,;=:@/?";

    private ReturnPath() {}

    /**
     * @param next the sign-in's {@code next} parameter, once decoded, or null
     * @return {@code next} when it is a plain path of the console, otherwise {@code "/"}
     */
    static String sameOrigin(String next) {
        return next != null && next.length() <= MAX_LENGTH && plainPath(next) ? next : "/";
    }

    private static boolean plainPath(String s) {
        int end = s.length();
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '?' || s.charAt(i) == '#') {
                end = i;
                break;
            }
        }
        return path(s.substring(0, end)) && query(s.substring(end));
    }

    /** {@code /} or {@code (/segment)+}. */
    private static boolean path(String p) {
        if (p.equals("/")) {
            return true;
        }
        if (!p.startsWith("/") || p.endsWith("/")) {
            return false;
        }
        for (String segment : p.substring(1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..") || !unreserved(segment)) {
                return false;
            }
        }
        return true;
    }

    private static boolean unreserved(String segment) {
        return segment.chars().allMatch(c -> alphanumeric(c) || "-._~".indexOf(c) >= 0);
    }

    /** Empty, or {@code ?…} / {@code #…} of query characters with well-formed, non-control percent escapes. */
    private static boolean query(String q) {
        boolean fragment = false;
        for (int i = 0; i < q.length(); i++) {
            char c = q.charAt(i);
            if (c == '%') {
                if (i + 2 >= q.length() || hex(q.charAt(i + 1)) < 0 || hex(q.charAt(i + 2)) < 0) {
                    return false;
                }
                int b = hex(q.charAt(i + 1)) * 16 + hex(q.charAt(i + 2));
                if (b < 0x20 || b == 0x7f) {
                    return false;
                }
                i += 2;
            } else if (c == '#') {
                if (fragment) {
                    return false;
                }
                fragment = true;
            } else if (!alphanumeric(c) && QUERY_PUNCTUATION.indexOf(c) < 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean alphanumeric(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    private static int hex(char c) {
        return Character.digit(c, 16) >= 0 && c < 0x80 ? Character.digit(c, 16) : -1;
    }
}
