package dev.tenure.console;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * Where a page of fires continues: the last fire key shown (pages are in slot order, by fire key, the latest first:
 * {@code job_run_fire_uq (job_key, fire_key)}). Written {@code k<base64url of the key>} in URLs and the CLI's
 * {@code --before}, so any key survives a URL and a shell.
 */
record Cursor(String fireKey) {

    Cursor {
        Objects.requireNonNull(fireKey, "fireKey");
    }

    /** The text form. */
    String encode() {
        return "k" + Base64.getUrlEncoder().withoutPadding().encodeToString(fireKey.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Parses {@link #encode()}'s form.
     *
     * @throws IllegalArgumentException naming the text and the form expected
     */
    static Cursor parse(String text) {
        try {
            if (text == null || !text.startsWith("k") || text.length() < 2) {
                throw new IllegalArgumentException("no key");
            }
            return new Cursor(new String(Base64.getUrlDecoder().decode(text.substring(1)), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "cursor must be k<fire key in base64url> as printed after a page (got '" + text + "')");
        }
    }
}
