package dev.tenure.testkit;

import java.nio.file.Path;
import java.util.List;

/**
 * Starts Valkey for tests: one server, a primary with a replica, or a 3+3 cluster.
 *
 * <p>Where a standalone server comes from, in order:
 * <ol>
 *   <li>{@code TENURE_VALKEY_ADDRESS=host:port} (and optional {@code TENURE_VALKEY_PASSWORD}): a handle to that
 *       running server; extra arguments are applied with CONFIG SET; process control is unsupported;</li>
 *   <li>the binary named by {@code TENURE_VALKEY_SERVER_BIN}, else {@code valkey-server} on PATH: a child process;</li>
 *   <li>if no binary exists and Docker is available: a Testcontainers {@code valkey/valkey:8.0} container;</li>
 *   <li>otherwise an {@link IllegalStateException} saying what to install. Tests are never silently skipped.</li>
 * </ol>
 * Replication groups and clusters always need the local binary (and clusters {@code valkey-cli}).
 *
 * <p>Each local server runs on a free loopback port in 20000–40000, in its own temp directory, with
 * {@code --save "" --appendonly no --bind 127.0.0.1 --daemonize no --enable-debug-command local}, followed by the
 * caller's extra arguments (so those win), e.g. {@code "--notify-keyspace-events", "KEA"} or
 * {@code "--requirepass", "secret"} (the kit then authenticates its own commands).
 */
public final class ValkeyServers {

    private ValkeyServers() {}

    /** One server; see the class comment for where it comes from. Blocks until it answers PING. */
    public static ValkeyServer standalone(String... extraArgs) {
        return ValkeyLauncher.fromSystem().standalone(List.of(extraArgs));
    }

    /**
     * A primary and a replica that has finished its first full sync. Both get {@code --repl-diskless-sync yes
     * --repl-diskless-sync-delay 0 --repl-diskless-load swapdb --repl-ping-replica-period 1 --repl-timeout 3}, then
     * {@code extraArgs}.
     */
    public static ValkeyReplicationGroup primaryWithReplica(String... extraArgs) {
        ValkeyLauncher launcher = ValkeyLauncher.fromSystem();
        return ValkeyReplicationGroup.start(
                launcher.requireServerBinary("A primary with a replica"), List.of(extraArgs));
    }

    /**
     * Three primaries with one replica each, slots split evenly, every replica synced and every node agreeing on the
     * slot map. Nodes get {@code --cluster-enabled yes --cluster-node-timeout 1000}, so a killed primary fails over
     * in about 2–4 s; see {@link ValkeyCluster} for all arguments.
     */
    public static ValkeyCluster cluster(String... extraArgs) {
        ValkeyLauncher launcher = ValkeyLauncher.fromSystem();
        Path server = launcher.requireServerBinary("A Valkey cluster");
        return ValkeyCluster.start(server, launcher.requireCliBinary(server), List.of(extraArgs));
    }
}
