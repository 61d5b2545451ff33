package dev.tenure.internal;

/** A parsed {@code host:port} (an IPv6 host in brackets: {@code [::1]:6379}), for store configurations. */
public record HostPort(String host, int port) {

    /** Parses {@code host:port}; an {@link IllegalArgumentException} names the value and the rule. */
    public static HostPort parse(String s) {
        if (s == null || s.isBlank()) {
            throw new IllegalArgumentException(
                    "Valkey address must be host:port (got " + (s == null ? "null" : "\"" + s + "\"") + ")");
        }
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            throw new IllegalArgumentException("Valkey address must be host:port (got \"" + s + "\")");
        }
        int port;
        try {
            port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Valkey address port must be a number (got \"" + s + "\")");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("Valkey address port must be 1..65535 (got \"" + s + "\")");
        }
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new HostPort(host, port);
    }
}
