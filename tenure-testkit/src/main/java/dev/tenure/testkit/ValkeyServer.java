package dev.tenure.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One Valkey server for a test: usually a {@code valkey-server} process this JVM started (see {@link ValkeyServers}),
 * which the test can kill, pause, resume and restart to simulate failures.
 *
 * <p>Two other kinds exist. With {@code TENURE_VALKEY_ADDRESS} set, {@link ValkeyServers#standalone(String...)} returns
 * a handle to that external server: commands work, process control throws {@link UnsupportedOperationException}.
 * Without a local binary but with Docker, it returns a Testcontainers-backed server: kill, pause and resume work,
 * {@link #restart()} and {@link #pid()} do not.
 *
 * <p>Thread-safe. {@link #close()} is idempotent and kills the process (even a paused one) and deletes its directory.
 * A JVM shutdown hook kills whatever a test forgot to close.
 */
public interface ValkeyServer extends AutoCloseable {

    /** Always {@code "127.0.0.1"} for local servers. */
    String host();

    /** The data port; it stays the same across {@link #restart()}. */
    int port();

    /** {@code host:port}, e.g. {@code "127.0.0.1:23456"}: the form client configurations and cluster seeds take. */
    default String address() {
        return host() + ":" + port();
    }

    /**
     * The operating-system process id; it changes on {@link #restart()}.
     *
     * @throws UnsupportedOperationException for external and container servers
     */
    long pid();

    /** Whether the process is running (a paused process counts as alive); for an external server, whether it answers PING. */
    boolean isAlive();

    /** SIGKILL, then waits until the process is gone. Idempotent. Data is lost: nothing is persisted. */
    void kill();

    /** SIGSTOP: the server keeps its sockets but answers nothing, like a long GC pause or a hung host. */
    void pause();

    /** SIGCONT after {@link #pause()}. */
    void resume();

    /**
     * Kills the process if it still runs, then starts it again on the same port, in the same directory, with the same
     * arguments, and waits until it answers PING. The dataset starts empty; a cluster node keeps its identity and
     * rejoins through its {@code nodes.conf}.
     */
    void restart();

    /** SIGTERM (after SIGCONT if paused) and waits for a clean exit; SIGKILL if that takes longer than 10 s. */
    void stop();

    /**
     * Sends one command over a fresh connection (so connection-scoped commands such as WAIT, MULTI/EXEC or SELECT
     * only make sense inside {@link #pipeline(List)}), with a 5 s timeout (scaled by {@link Timing}), authenticating first
     * if the server has a password.
     *
     * @return a String (simple or bulk string), Long, {@code List<Object>} or null
     * @throws ValkeyReplyException if the server replies with an error
     * @throws java.io.UncheckedIOException on connection failure or timeout (cause {@link java.net.SocketTimeoutException})
     */
    default Object command(String... args) {
        return command(Timing.scaled(Duration.ofSeconds(5)), args);
    }

    /**
     * Calls per command since the server started, from {@code INFO commandstats}, commands run inside scripts included
     * (keys as Valkey names them, e.g. {@code evalsha}, {@code client|setname}).
     */
    default java.util.Map<String, Long> commandCalls() {
        java.util.Map<String, Long> calls = new java.util.TreeMap<>();
        for (String line : String.valueOf(command("INFO", "commandstats")).split("\\R")) {
            if (line.startsWith("cmdstat_")) {
                calls.put(
                        line.substring("cmdstat_".length(), line.indexOf(':')),
                        Long.parseLong(line.replaceAll("^cmdstat_[^:]+:calls=(\\d+),.*", "$1")
                                .trim()));
            }
        }
        return calls;
    }

    /** {@link #command(String...)} with an exact timeout for connect and for reading the reply (not scaled). */
    default Object command(Duration timeout, String... args) {
        return RespClient.call(host(), port(), requirePass(), timeout, args);
    }

    /**
     * Sends several commands over one fresh connection and returns their replies in order, with a 5 s timeout (scaled).
     * Error replies do not throw here: they come back as {@link ValkeyReplyException} elements. Use it for
     * commands that depend on the connection, e.g. {@code SET} followed by {@code WAIT 1 1000}.
     *
     * @throws java.io.UncheckedIOException on connection failure or timeout
     */
    default List<Object> pipeline(List<List<String>> commands) {
        return pipeline(Timing.scaled(Duration.ofSeconds(5)), commands);
    }

    /** {@link #pipeline(List)} with an exact timeout for connect and for reading each reply (not scaled). */
    default List<Object> pipeline(Duration timeout, List<List<String>> commands) {
        return RespClient.callAll(host(), port(), requirePass(), timeout, commands);
    }

    /** The password the kit's own commands authenticate with (the default user's), or null for none. */
    String requirePass();

    /** The text of {@code INFO section}, e.g. {@code info("replication")}. */
    default String info(String section) {
        return (String) command("INFO", section);
    }

    /** The server's log file, if this kit started the process. */
    Optional<Path> logFile();

    /** Kills the process, deletes its directory. Idempotent; a no-op for external servers. */
    @Override
    void close();
}
