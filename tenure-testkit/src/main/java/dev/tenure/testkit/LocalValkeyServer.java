package dev.tenure.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A {@code valkey-server} child process in its own temp directory; see {@link ValkeyServer}. */
final class LocalValkeyServer implements ValkeyServer {

    private static final Logger LOG = LoggerFactory.getLogger(LocalValkeyServer.class);
    private static final String HOST = "127.0.0.1";
    private static final int START_ATTEMPTS = 5;

    private final Path binary;
    private final int port;
    private final Path dir;
    private final List<String> extraArgs;
    private final String password;
    private Process process;
    private boolean paused;
    private boolean closed;

    private LocalValkeyServer(Path binary, int port, Path dir, List<String> extraArgs) {
        this.binary = binary;
        this.port = port;
        this.dir = dir;
        this.extraArgs = List.copyOf(extraArgs);
        this.password = ValkeyArgs.password(extraArgs).orElse(null);
    }

    /** Starts a server on a free port, retrying with another port if the chosen one was taken meanwhile. */
    static LocalValkeyServer start(Path binary, List<String> extraArgs, boolean clusterBus) {
        for (int attempt = 1; ; attempt++) {
            int port = FreePorts.pick(clusterBus);
            LocalValkeyServer server = new LocalValkeyServer(
                    binary, port, ChildProcesses.newTempDirectory("tenure-valkey-" + port + "-"), extraArgs);
            try {
                server.launch();
                return server;
            } catch (PortTakenException e) {
                server.close();
                if (attempt == START_ATTEMPTS) {
                    throw new IllegalStateException("valkey-server found its port taken " + attempt + " times", e);
                }
            } catch (RuntimeException e) {
                server.close();
                throw e;
            }
        }
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public synchronized long pid() {
        return process.pid();
    }

    @Override
    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    @Override
    public synchronized void kill() {
        if (process != null) {
            ChildProcesses.kill(process);
        }
        paused = false;
    }

    @Override
    public synchronized void pause() {
        requireAlive("pause");
        Signals.stop(process.pid());
        paused = true;
    }

    @Override
    public synchronized void resume() {
        requireAlive("resume");
        Signals.cont(process.pid());
        paused = false;
    }

    @Override
    public synchronized void restart() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
        kill();
        try {
            launch();
        } catch (PortTakenException e) {
            throw new IllegalStateException("cannot restart " + this + ": another process took port " + port, e);
        }
    }

    @Override
    public synchronized void stop() {
        if (!isAlive()) {
            return;
        }
        if (paused) {
            resume();
        }
        process.destroy();
        try {
            if (!process.waitFor(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS)) {
                LOG.warn("{} ignored SIGTERM, killing it", this);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill();
    }

    @Override
    public String requirePass() {
        return password;
    }

    @Override
    public Optional<Path> logFile() {
        return Optional.of(dir.resolve("valkey.log"));
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        kill();
        ChildProcesses.deleteDirectory(dir);
    }

    @Override
    public synchronized String toString() {
        return "valkey-server " + address() + (isAlive() ? " (pid " + process.pid() + ")" : " (not running)");
    }

    private void requireAlive(String action) {
        if (!isAlive()) {
            throw new IllegalStateException("cannot " + action + " " + this);
        }
    }

    private void launch() {
        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "--save",
                "",
                "--appendonly",
                "no",
                "--bind",
                HOST,
                "--port",
                Integer.toString(port),
                "--dir",
                dir.toString(),
                "--logfile",
                dir.resolve("valkey.log").toString(),
                "--daemonize",
                "no",
                "--enable-debug-command",
                "local"));
        command.addAll(extraArgs);
        try {
            process = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("could not start " + binary + ": " + e.getMessage(), e);
        }
        ChildProcesses.track(process);
        paused = false;
        awaitPing();
        LOG.debug("started {}", this);
    }

    private void awaitPing() {
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(15)).toNanos();
        while (true) {
            if (!process.isAlive()) {
                String output = tail(dir.resolve("valkey.log")) + tail(dir.resolve("stdout.log"));
                if (output.contains("Address already in use")) {
                    throw new PortTakenException(output);
                }
                throw new IllegalStateException("valkey-server on port " + port + " exited with " + process.exitValue()
                        + " during start-up. Output:\n" + output);
            }
            if (answersPing()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                ChildProcesses.kill(process);
                throw new IllegalStateException("valkey-server on port " + port + " did not answer PING in time. "
                        + "Log:\n" + tail(dir.resolve("valkey.log")));
            }
            Await.sleep(20);
        }
    }

    private boolean answersPing() {
        try {
            return "PONG".equals(command(Duration.ofMillis(500), "PING"));
        } catch (UncheckedIOException | ValkeyReplyException e) {
            return false;
        }
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size())) + "\n";
        } catch (IOException e) {
            return "";
        }
    }

    /** The server could not bind its port: another process took it after {@link FreePorts} checked. */
    private static final class PortTakenException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PortTakenException(String output) {
            super(output);
        }
    }
}
