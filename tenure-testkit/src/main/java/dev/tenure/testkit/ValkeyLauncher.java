package dev.tenure.testkit;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.testcontainers.DockerClientFactory;

/**
 * Decides where a test's Valkey comes from. The environment and the Docker probe are injected so the decision can be
 * tested without changing the real environment.
 */
final class ValkeyLauncher {

    static final String ADDRESS_ENV = "TENURE_VALKEY_ADDRESS";
    static final String PASSWORD_ENV = "TENURE_VALKEY_PASSWORD";
    static final String SERVER_BIN_ENV = "TENURE_VALKEY_SERVER_BIN";
    static final String INSTALL_HINT = "Install it with 'apt-get install -t bookworm-backports valkey-server "
            + "valkey-tools' (Debian 12), set " + SERVER_BIN_ENV + " to a valkey-server binary, or set " + ADDRESS_ENV
            + "=host:port to use a running server.";

    private final Function<String, String> env;
    private final BooleanSupplier dockerAvailable;

    ValkeyLauncher(Function<String, String> env, BooleanSupplier dockerAvailable) {
        this.env = env;
        this.dockerAvailable = dockerAvailable;
    }

    static ValkeyLauncher fromSystem() {
        return new ValkeyLauncher(
                System::getenv, () -> DockerClientFactory.instance().isDockerAvailable());
    }

    ValkeyServer standalone(List<String> extraArgs) {
        String address = env.apply(ADDRESS_ENV);
        if (address != null && !address.isBlank()) {
            ExternalValkeyServer external = ExternalValkeyServer.of(address, env.apply(PASSWORD_ENV));
            external.configure(extraArgs);
            return external;
        }
        Optional<Path> binary = serverBinary();
        if (binary.isPresent()) {
            return LocalValkeyServer.start(binary.get(), extraArgs, false);
        }
        if (dockerAvailable.getAsBoolean()) {
            return ContainerValkeyServer.start(extraArgs);
        }
        throw new IllegalStateException(
                "No valkey-server found on PATH and no Docker engine available. " + INSTALL_HINT);
    }

    /** Replication groups and clusters need local processes: they signal and restart individual nodes. */
    Path requireServerBinary(String what) {
        return serverBinary()
                .orElseThrow(() -> new IllegalStateException(what + " needs a local valkey-server "
                        + "binary (" + ADDRESS_ENV + " and Docker are not used for it), and none was found on PATH. "
                        + INSTALL_HINT));
    }

    /** valkey-cli next to the server binary, else on PATH. */
    Path requireCliBinary(Path serverBinary) {
        Path sibling = serverBinary.resolveSibling("valkey-cli");
        if (Files.isExecutable(sibling)) {
            return sibling;
        }
        return onPath("valkey-cli")
                .orElseThrow(() -> new IllegalStateException("A Valkey cluster is created with "
                        + "valkey-cli, which was not found next to " + serverBinary + " nor on PATH. " + INSTALL_HINT));
    }

    /** {@code TENURE_VALKEY_SERVER_BIN}, else {@code valkey-server} on PATH. */
    Optional<Path> serverBinary() {
        String configured = env.apply(SERVER_BIN_ENV);
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured.trim());
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(
                        SERVER_BIN_ENV + "=" + configured + " is not an executable file. " + INSTALL_HINT);
            }
            return Optional.of(path);
        }
        return onPath("valkey-server");
    }

    private Optional<Path> onPath(String name) {
        String path = env.apply("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }
}
