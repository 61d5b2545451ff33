package dev.tenure.testkit;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * A Valkey cluster of three primaries and three replicas, all local processes, created with
 * {@code valkey-cli --cluster create ... --cluster-replicas 1}. {@link ValkeyServers#cluster(String...)} returns it once
 * every node reports {@code cluster_state:ok}, every replica finished its first sync and all nodes agree on the slot map.
 *
 * <p>Node arguments: {@code --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 1000
 * --cluster-replica-validity-factor 0 --repl-diskless-sync yes --repl-diskless-sync-delay 0
 * --repl-diskless-load swapdb}, then the caller's. With a 1 s node timeout a killed primary fails over in about 2–4 s;
 * validity factor 0 lets a replica take over however long its link was down.
 *
 * <p>Roles change on failover, so {@link #primaries()}, {@link #replicas()}, {@link #primaryForSlot(int)} and
 * {@link #replicaOf(ValkeyServer)} ask the live nodes each time (killed or paused nodes are left out).
 * Thread-safe; {@link #close()} kills all six processes.
 */
public final class ValkeyCluster implements AutoCloseable {

    /** The number of hash slots. */
    public static final int SLOTS = 16384;

    static final List<String> CLUSTER_ARGS = List.of(
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            "1000",
            "--cluster-replica-validity-factor",
            "0",
            "--repl-diskless-sync",
            "yes",
            "--repl-diskless-sync-delay",
            "0",
            "--repl-diskless-load",
            "swapdb");
    private static final int PRIMARIES = 3;
    private static final int NODES = 6;
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);

    private final List<ValkeyServer> nodes;
    /** Node id of each server; ids survive restarts through nodes.conf. */
    private final Map<ValkeyServer, String> ids = new LinkedHashMap<>();
    /** Which primary each replica followed right after creation. */
    private final Map<ValkeyServer, String> initialPrimaryIds = new LinkedHashMap<>();

    private ValkeyCluster(List<ValkeyServer> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    static ValkeyCluster start(Path serverBinary, Path cliBinary, List<String> extraArgs) {
        List<String> args = ValkeyArgs.forReplication(CLUSTER_ARGS, extraArgs);
        List<ValkeyServer> started = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                started.add(LocalValkeyServer.start(serverBinary, args, true));
            }
            ValkeyCluster cluster = new ValkeyCluster(started);
            cluster.create(cliBinary, ValkeyArgs.password(extraArgs));
            return cluster;
        } catch (RuntimeException e) {
            started.forEach(ValkeyServer::close);
            throw e;
        }
    }

    /**
     * The slot of {@code key} as Valkey computes it: CRC16-XMODEM of the hash tag (the part between the first
     * {@code '{'} and the next {@code '}'}, if non-empty) or of the whole key, mod 16384.
     */
    public static int slotOf(String key) {
        return ClusterSlots.slotOf(key.getBytes(StandardCharsets.UTF_8));
    }

    /** {@link #slotOf(String)} for a binary key. */
    public static int slotOf(byte[] key) {
        return ClusterSlots.slotOf(key);
    }

    /** All six servers, in start order, whatever their state. */
    public List<ValkeyServer> nodes() {
        return nodes;
    }

    /** Live nodes that currently consider themselves primaries. */
    public List<ValkeyServer> primaries() {
        return liveNodesWhere(ClusterNodeLine::isPrimary);
    }

    /** Live nodes that currently consider themselves replicas. */
    public List<ValkeyServer> replicas() {
        return liveNodesWhere(line -> !line.isPrimary());
    }

    /** {@code host:port} of every node: seeds for a cluster client (one is enough for most clients). */
    public List<String> seedAddresses() {
        return nodes.stream().map(ValkeyServer::address).collect(Collectors.toList());
    }

    /**
     * The primary serving {@code slot}, as the first live node that answers sees it.
     *
     * @throws IllegalStateException if no live node knows a healthy primary for the slot
     */
    public ValkeyServer primaryForSlot(int slot) {
        for (ValkeyServer node : nodes) {
            Optional<ClusterNodeLine> owner = view(node)
                    .flatMap(lines -> lines.stream()
                            .filter(line -> line.isPrimary() && !line.isFailed() && line.ownsSlot(slot))
                            .findFirst());
            if (owner.isPresent()) {
                return serverWithId(owner.get().id());
            }
        }
        throw new IllegalStateException("no live node knows a healthy primary for slot " + slot + ". " + dump());
    }

    /** {@code primaryForSlot(slotOf(key))}. */
    public ValkeyServer primaryForKey(String key) {
        return primaryForSlot(slotOf(key));
    }

    /**
     * A live node that currently replicates {@code primary}.
     *
     * @throws IllegalStateException if there is none
     */
    public ValkeyServer replicaOf(ValkeyServer primary) {
        String primaryId = idOf(primary);
        return liveNodesWhere(line -> line.isReplicaOf(primaryId)).stream()
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no live replica of " + primary + ". " + dump()));
    }

    /**
     * Waits until a replica of {@code killedPrimary} has been promoted, every other live node sees it as a primary
     * with slots, and every live node other than {@code killedPrimary} reports {@code cluster_state:ok}. Call it soon
     * after killing (or pausing) the primary. The timeout is used as given: wrap it in {@link Timing#scaled}.
     *
     * @return the promoted replica
     * @throws IllegalStateException on timeout, with the cluster's view of itself
     */
    public ValkeyServer awaitFailover(ValkeyServer killedPrimary, Duration timeout) {
        String killedId = idOf(killedPrimary);
        Set<ValkeyServer> candidates = new HashSet<>(liveNodesWhere(line -> line.isReplicaOf(killedId)));
        initialPrimaryIds.forEach((replica, primaryId) -> {
            if (primaryId.equals(killedId)) {
                candidates.add(replica);
            }
        });
        ValkeyServer[] promoted = new ValkeyServer[1];
        Await.until(timeout, () -> "a replica of " + killedPrimary + " to take over. " + dump(), () -> {
            List<ValkeyServer> survivors = survivorsExcept(killedPrimary);
            for (ValkeyServer candidate : candidates) {
                if (survivors.contains(candidate) && allSeeAsPrimary(survivors, candidate) && allOk(survivors)) {
                    promoted[0] = candidate;
                    return true;
                }
            }
            return false;
        });
        return promoted[0];
    }

    /**
     * Waits until every node is alive, reports {@code cluster_state:ok}, knows all six nodes and agrees on the slot
     * map, and every replica has finished its first sync. Useful after restarting nodes.
     */
    public void awaitStable(Duration timeout) {
        Await.until(timeout, () -> "a stable cluster. " + dump(), () -> {
            for (ValkeyServer node : nodes) {
                String info = (String) node.command(PROBE_TIMEOUT, "CLUSTER", "INFO");
                if (!Info.has(info, "cluster_state", "ok") || !Info.has(info, "cluster_known_nodes", "" + NODES)) {
                    return false;
                }
            }
            return replicasSynced() && slotMapsAgree();
        });
    }

    @Override
    public void close() {
        nodes.forEach(ValkeyServer::close);
    }

    @Override
    public String toString() {
        return "ValkeyCluster" + seedAddresses();
    }

    private void create(Path cli, Optional<String> password) {
        List<String> arguments = new ArrayList<>(List.of("--cluster", "create"));
        arguments.addAll(seedAddresses());
        arguments.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        password.ifPresent(secret -> arguments.addAll(List.of("-a", secret, "--no-auth-warning")));
        ValkeyCli.run(cli, arguments, nodes.get(0).logFile().orElseThrow().resolveSibling("cluster-create.log"));
        for (ValkeyServer node : nodes) {
            ids.put(node, (String) node.command("CLUSTER", "MYID"));
        }
        awaitStable(Timing.scaled(Duration.ofSeconds(30)));
        for (ValkeyServer node : nodes) {
            myself(node)
                    .filter(line -> !line.isPrimary())
                    .ifPresent(line -> initialPrimaryIds.put(node, line.masterId()));
        }
        if (primaries().size() != PRIMARIES) {
            throw new IllegalStateException("expected " + PRIMARIES + " primaries after create. " + dump());
        }
    }

    private boolean replicasSynced() {
        for (ValkeyServer replica : replicas()) {
            String info = replica.info("replication");
            int primaryPort = Integer.parseInt(Info.field(info, "master_port").orElse("0"));
            ValkeyServer primary = nodes.stream()
                    .filter(node -> node.port() == primaryPort)
                    .findFirst()
                    .orElse(null);
            if (primary == null
                    || !Info.has(info, "master_link_status", "up")
                    || !Info.replicaOnline(primary.info("replication"), replica.port())) {
                return false;
            }
        }
        return true;
    }

    private boolean slotMapsAgree() {
        Set<String> maps = new HashSet<>();
        for (ValkeyServer node : nodes) {
            maps.add(view(node).orElseThrow().stream()
                    .filter(line -> !line.slotRanges().isEmpty())
                    .map(line -> line.id() + "=" + line.slotRanges())
                    .sorted()
                    .collect(Collectors.joining(";")));
        }
        return maps.size() == 1;
    }

    private boolean allSeeAsPrimary(List<ValkeyServer> survivors, ValkeyServer candidate) {
        String id = idOf(candidate);
        for (ValkeyServer survivor : survivors) {
            boolean seen = view(survivor).orElseThrow().stream()
                    .anyMatch(line -> line.id().equals(id)
                            && line.isPrimary()
                            && !line.slotRanges().isEmpty());
            if (!seen) {
                return false;
            }
        }
        return true;
    }

    private boolean allOk(List<ValkeyServer> survivors) {
        return survivors.stream()
                .allMatch(node ->
                        Info.has((String) node.command(PROBE_TIMEOUT, "CLUSTER", "INFO"), "cluster_state", "ok"));
    }

    private List<ValkeyServer> survivorsExcept(ValkeyServer excluded) {
        return nodes.stream()
                .filter(node -> node != excluded && view(node).isPresent())
                .collect(Collectors.toList());
    }

    private List<ValkeyServer> liveNodesWhere(Predicate<ClusterNodeLine> ownLine) {
        return nodes.stream()
                .filter(node -> myself(node).filter(ownLine).isPresent())
                .collect(Collectors.toList());
    }

    private Optional<ClusterNodeLine> myself(ValkeyServer node) {
        return view(node)
                .flatMap(lines ->
                        lines.stream().filter(ClusterNodeLine::isMyself).findFirst());
    }

    /** The node's CLUSTER NODES, or empty if it does not answer quickly (killed, paused, restarting). */
    private Optional<List<ClusterNodeLine>> view(ValkeyServer node) {
        try {
            return Optional.of(ClusterNodeLine.parseAll((String) node.command(PROBE_TIMEOUT, "CLUSTER", "NODES")));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private String idOf(ValkeyServer server) {
        String id = ids.get(server);
        if (id == null) {
            throw new IllegalArgumentException(server + " is not a node of " + this);
        }
        return id;
    }

    private ValkeyServer serverWithId(String id) {
        return ids.entrySet().stream()
                .filter(entry -> entry.getValue().equals(id))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("unknown node id " + id));
    }

    /** CLUSTER NODES from the first node that answers, for failure messages. */
    private String dump() {
        for (ValkeyServer node : nodes) {
            try {
                return "CLUSTER NODES on " + node.address() + ":\n" + node.command(PROBE_TIMEOUT, "CLUSTER", "NODES");
            } catch (RuntimeException e) {
                // try the next node
            }
        }
        return "no node answers CLUSTER NODES";
    }
}
