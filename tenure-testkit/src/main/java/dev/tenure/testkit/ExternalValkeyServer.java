package dev.tenure.testkit;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A server someone else runs, named by {@code TENURE_VALKEY_ADDRESS} (password from {@code TENURE_VALKEY_PASSWORD}).
 * The kit cannot control its process and does not clean its data on close.
 */
final class ExternalValkeyServer implements ValkeyServer {

    private final String host;
    private final int port;
    private final String password;

    ExternalValkeyServer(String host, int port, String password) {
        this.host = host;
        this.port = port;
        this.password = password;
    }

    /** Parses {@code host:port}. */
    static ExternalValkeyServer of(String address, String password) {
        int colon = address.lastIndexOf(':');
        try {
            return new ExternalValkeyServer(
                    address.substring(0, colon).trim(),
                    Integer.parseInt(address.substring(colon + 1).trim()),
                    password);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "TENURE_VALKEY_ADDRESS must look like host:port, e.g. 127.0.0.1:6390, got '" + address + "'", e);
        }
    }

    /** Applies start-up arguments such as {@code --notify-keyspace-events KEA} with CONFIG SET. */
    void configure(List<String> extraArgs) {
        for (List<String> option : ValkeyArgs.options(extraArgs)) {
            List<String> command = ValkeyArgs.concat(List.of("CONFIG", "SET"), option.toArray(String[]::new));
            try {
                command(command.toArray(String[]::new));
            } catch (ValkeyReplyException e) {
                throw new IllegalStateException(
                        "the external server " + address() + " (TENURE_VALKEY_ADDRESS) "
                                + "cannot apply --" + String.join(" ", option) + " at run time: " + e.reply()
                                + ". Configure that server yourself, or unset TENURE_VALKEY_ADDRESS.",
                        e);
            }
        }
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public long pid() {
        throw unsupported("has no process id");
    }

    @Override
    public boolean isAlive() {
        try {
            return "PONG".equals(command(Duration.ofSeconds(1), "PING"));
        } catch (UncheckedIOException | ValkeyReplyException e) {
            return false;
        }
    }

    @Override
    public void kill() {
        throw unsupported("cannot be killed");
    }

    @Override
    public void pause() {
        throw unsupported("cannot be paused");
    }

    @Override
    public void resume() {
        throw unsupported("cannot be resumed");
    }

    @Override
    public void restart() {
        throw unsupported("cannot be restarted");
    }

    @Override
    public void stop() {
        throw unsupported("cannot be stopped");
    }

    @Override
    public String requirePass() {
        return password;
    }

    @Override
    public Optional<Path> logFile() {
        return Optional.empty();
    }

    @Override
    public void close() {
        // not ours to stop
    }

    @Override
    public String toString() {
        return "external Valkey " + address();
    }

    private UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException(address() + " is an external server (TENURE_VALKEY_ADDRESS) and "
                + what + " by the test kit. Unset TENURE_VALKEY_ADDRESS so tests start their own valkey-server.");
    }
}
