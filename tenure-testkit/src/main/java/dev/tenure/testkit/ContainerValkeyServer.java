package dev.tenure.testkit;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The last resort when no valkey-server binary exists but Docker does: {@code valkey/valkey:8.0} in a container.
 * Kill, pause and resume act on the container; restart and pid are unsupported (the mapped port would change).
 */
final class ContainerValkeyServer implements ValkeyServer {

    static final String IMAGE = "valkey/valkey:8.0";
    private static final int CONTAINER_PORT = 6379;

    private final GenericContainer<?> container;
    private final String password;
    private boolean closed;

    private ContainerValkeyServer(GenericContainer<?> container, String password) {
        this.container = container;
        this.password = password;
    }

    @SuppressWarnings("resource") // closed by close()
    static ContainerValkeyServer start(List<String> extraArgs) {
        List<String> command = ValkeyArgs.concat(List.of(
                "valkey-server",
                "--save",
                "",
                "--appendonly",
                "no",
                "--port",
                Integer.toString(CONTAINER_PORT),
                "--enable-debug-command",
                "yes"));
        command.addAll(extraArgs);
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withExposedPorts(CONTAINER_PORT)
                .withCommand(command.toArray(String[]::new));
        container.start();
        return new ContainerValkeyServer(
                container, ValkeyArgs.password(extraArgs).orElse(null));
    }

    @Override
    public String host() {
        return container.getHost();
    }

    @Override
    public int port() {
        return container.getMappedPort(CONTAINER_PORT);
    }

    @Override
    public long pid() {
        throw new UnsupportedOperationException(this + " runs in a container; it has no local process id");
    }

    @Override
    public synchronized boolean isAlive() {
        return !closed && container.isRunning();
    }

    @Override
    public synchronized void kill() {
        if (isAlive()) {
            container
                    .getDockerClient()
                    .killContainerCmd(container.getContainerId())
                    .exec();
        }
    }

    @Override
    public synchronized void pause() {
        container
                .getDockerClient()
                .pauseContainerCmd(container.getContainerId())
                .exec();
    }

    @Override
    public synchronized void resume() {
        container
                .getDockerClient()
                .unpauseContainerCmd(container.getContainerId())
                .exec();
    }

    @Override
    public void restart() {
        throw new UnsupportedOperationException(this + " runs in a container and cannot restart on the same port. "
                + "Install valkey-server locally for restart tests.");
    }

    @Override
    public synchronized void stop() {
        container.stop();
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
    public synchronized void close() {
        if (!closed) {
            closed = true;
            container.stop();
        }
    }

    @Override
    public String toString() {
        return "Valkey container " + container.getContainerName();
    }
}
