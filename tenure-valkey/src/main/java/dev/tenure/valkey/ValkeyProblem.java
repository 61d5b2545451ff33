package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A failed Valkey call as operators need to read it: one line that names the server and says what it answered, e.g.
 * {@code "Valkey 10.0.0.5:6379: WRONGPASS: invalid username-password pair or user is disabled."}. GLIDE names the
 * address in its connection errors; for other failures the configured addresses stand in.
 */
final class ValkeyProblem {

    /** GLIDE's "... Received error for address `host:port`: WRONGPASS: ..." */
    private static final Pattern ADDRESS = Pattern.compile("address `([^`]+)`:\\s*(.*)");

    private ValkeyProblem() {}

    static String describe(ValkeyConfig cfg, Throwable failure) {
        Throwable deepest = failure;
        String message = null;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && !t.getMessage().isBlank()) {
                message = t.getMessage();
                deepest = t;
            }
        }
        String line = message == null
                ? String.valueOf(failure)
                : message.strip().lines().findFirst().orElse("");
        Matcher m = ADDRESS.matcher(line);
        if (m.find()) {
            return "Valkey " + m.group(1) + ": " + m.group(2).strip();
        }
        String where = "Valkey " + String.join(", ", cfg.addresses()) + ": ";
        if (deepest instanceof glide.api.models.exceptions.TimeoutException) {
            return where + "no answer within the request timeout ("
                    + cfg.requestTimeout().toMillis() + " ms)";
        }
        return where + line;
    }
}
