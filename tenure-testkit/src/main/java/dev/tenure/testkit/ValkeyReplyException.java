package dev.tenure.testkit;

/**
 * The server answered a command with an error reply ({@code -ERR ...}, {@code -MOVED ...}, {@code -NOAUTH ...}).
 * Timeouts and connection failures are not reported this way but as {@link java.io.UncheckedIOException}.
 */
public final class ValkeyReplyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String reply;

    ValkeyReplyException(String address, String reply) {
        super(address + " replied: " + reply);
        this.reply = reply;
    }

    /** The error reply without the leading {@code -}, e.g. {@code "MOVED 3999 127.0.0.1:23001"}. */
    public String reply() {
        return reply;
    }

    /** The first word of the reply, e.g. {@code "ERR"}, {@code "MOVED"}, {@code "NOAUTH"}, {@code "LOADING"}. */
    public String code() {
        int space = reply.indexOf(' ');
        return space < 0 ? reply : reply.substring(0, space);
    }
}
