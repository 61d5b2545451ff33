package dev.tenure.bench;

import glide.api.logging.Logger;

/** GLIDE process-wide settings. */
final class GlideSupport {

    private static boolean initialised;

    private GlideSupport() {}

    /** The Rust core logs WARN lines to stdout by default; keep the tables clean. Must run before the first client. */
    static synchronized void quietLogs() {
        if (!initialised) {
            Logger.init(Logger.Level.ERROR);
            initialised = true;
        }
    }
}
