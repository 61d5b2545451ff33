package dev.tenure.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A primary and one replica, both local processes. {@link ValkeyServers#primaryWithReplica(String...)} returns it once
 * the replica's first full sync is done (replica: {@code master_link_status:up}; primary: the replica is
 * {@code state=online}), because a replica that is still syncing loses acknowledged writes on failover.
 *
 * <p>{@link #primary()} and {@link #replica()} name the servers as started; they do not follow promotions.
 * Thread-safe; {@link #close()} closes both servers.
 */
public final class ValkeyReplicationGroup implements AutoCloseable {

    static final List<String> REPLICATION_ARGS = List.of(
            "--repl-diskless-sync",
            "yes",
            "--repl-diskless-sync-delay",
            "0",
            "--repl-diskless-load",
            "swapdb",
            "--repl-ping-replica-period",
            "1",
            "--repl-timeout",
            "3");

    private final ValkeyServer primary;
    private final ValkeyServer replica;

    private ValkeyReplicationGroup(ValkeyServer primary, ValkeyServer replica) {
        this.primary = primary;
        this.replica = replica;
    }

    static ValkeyReplicationGroup start(Path binary, List<String> extraArgs) {
        List<String> args = ValkeyArgs.forReplication(REPLICATION_ARGS, extraArgs);
        ValkeyServer primary = LocalValkeyServer.start(binary, args, false);
        ValkeyServer replica = null;
        try {
            replica = LocalValkeyServer.start(binary, args, false);
            ValkeyReplicationGroup group = new ValkeyReplicationGroup(primary, replica);
            group.replicate();
            return group;
        } catch (RuntimeException e) {
            primary.close();
            if (replica != null) {
                replica.close();
            }
            throw e;
        }
    }

    /** The server started as primary. */
    public ValkeyServer primary() {
        return primary;
    }

    /** The server started as replica. */
    public ValkeyServer replica() {
        return replica;
    }

    /** {@code REPLICAOF NO ONE} on the replica, which then accepts writes; returns the replica. */
    public ValkeyServer promoteReplica() {
        replica.command("REPLICAOF", "NO", "ONE");
        return replica;
    }

    /**
     * Points the replica at the primary again ({@code REPLICAOF}) and waits for the full sync, e.g. after
     * {@link ValkeyServer#restart()} of either server.
     */
    public void replicate() {
        replica.command("REPLICAOF", primary.host(), Integer.toString(primary.port()));
        awaitReplicaSynced(Timing.scaled(Duration.ofSeconds(15)));
    }

    /** Waits until the replica's link is up and the primary lists it as {@code state=online}. */
    public void awaitReplicaSynced(Duration timeout) {
        Await.until(
                timeout,
                () -> "the first sync of " + replica + " from " + primary,
                () -> Info.has(replica.info("replication"), "master_link_status", "up")
                        && Info.replicaOnline(primary.info("replication"), replica.port()));
    }

    @Override
    public void close() {
        try {
            replica.close();
        } finally {
            primary.close();
        }
    }

    @Override
    public String toString() {
        return "ValkeyReplicationGroup[primary=" + primary + ", replica=" + replica + "]";
    }
}
