package dev.tenure.console;

import java.time.Instant;
import java.util.UUID;

/**
 * Where a page of runs continues: the last run's {@code started_at} (microseconds) and {@code run_id}, the keys of
 * {@code job_run_history_idx}. Written {@code <micros>_<uuid>} in URLs and the CLI's {@code --before}.
 */
record Cursor(Instant startedAt, UUID runId) {

    /** The text form. */
    String encode() {
        long micros =
                Math.addExact(Math.multiplyExact(startedAt.getEpochSecond(), 1_000_000L), startedAt.getNano() / 1000);
        return micros + "_" + runId;
    }

    /**
     * Parses {@link #encode()}'s form.
     *
     * @throws IllegalArgumentException naming the text and the form expected
     */
    static Cursor parse(String text) {
        int sep = text == null ? -1 : text.indexOf('_');
        try {
            long micros = Long.parseLong(text.substring(0, sep));
            return new Cursor(
                    Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000),
                    UUID.fromString(text.substring(sep + 1)));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "cursor must be <microseconds>_<run id> as printed after a page (got '" + text + "')");
        }
    }
}
