package dev.tenure.console;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A request as the console sees it, whatever server carried it (the JDK's HTTP server or a servlet container).
 *
 * @param method HTTP method
 * @param path   the path below the console's mount point, starting with {@code /} ({@code /} for the overview)
 * @param query  query parameters (first value of each)
 * @param form   {@code application/x-www-form-urlencoded} body parameters of a POST (first value of each)
 * @param header header lookup by name (case-insensitive), null when absent
 * @param base   the mount point as the browser sees it ({@code ""} at the root, {@code /tenure-console} mounted)
 */
record WebRequest(
        String method,
        String path,
        Map<String, String> query,
        Map<String, String> form,
        UnaryOperator<String> header,
        String base) {

    /** Parses {@code a=1&b=x%20y} (first value wins); empty for null. */
    static Map<String, String> params(String encoded) {
        Map<String, String> out = new HashMap<>();
        if (encoded == null || encoded.isEmpty()) {
            return out;
        }
        for (String pair : encoded.split("&")) {
            int eq = pair.indexOf('=');
            String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.putIfAbsent(name, value);
        }
        return out;
    }
}
