package dev.tenure.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Cuts TCP links on loopback ports in the kernel, the way a partitioned network does: every packet to or from a cut
 * port is dropped. Nobody hears a reset or an ICMP error; both ends just hear nothing, and TCP retransmits until the
 * link is healed (connections then carry on) or a timeout of the endpoint gives up. Pair it with {@link TcpRelay} to
 * give each process a path of its own.
 *
 * <p>It is an nftables table of this JVM's own ({@code inet tenure_cut_<pid>_<n>}) whose input chain drops loopback
 * packets whose source or destination port is in the table's set; {@link #cut} and {@link #heal} add and remove ports.
 * It needs the {@code nft} command (Debian package {@code nftables}, installed by {@code scripts/prerequisites.sh}) and
 * root or {@code CAP_NET_ADMIN}; without them {@link #create()} fails and says so. Nothing outside the table changes.
 *
 * <p>Thread-safe. {@link #close()} deletes the table (and so heals everything); a JVM shutdown hook deletes a table a
 * test forgot to close.
 */
public final class PacketFilter implements AutoCloseable {

    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final Pattern PACKETS = Pattern.compile("packets (\\d+)");

    private final String nft;
    private final String table;
    private final Set<Integer> cut = new TreeSet<>();
    private final Thread cleanUp;
    private boolean closed;

    private PacketFilter(String nft, String table) {
        this.nft = nft;
        this.table = table;
        this.cleanUp = new Thread(this::deleteTable, "tenure-packet-filter-cleanup");
    }

    /**
     * Creates the table, with no port cut yet.
     *
     * @throws IllegalStateException if {@code nft} is missing or may not change the ruleset, naming what to install or
     *                               which right is missing
     */
    public static PacketFilter create() {
        String nft = findNft();
        String table = "tenure_cut_" + ProcessHandle.current().pid() + "_" + TABLES.incrementAndGet();
        PacketFilter filter = new PacketFilter(nft, table);
        String script = "table inet " + table + " {\n"
                + "  set ports { type inet_service; }\n"
                + "  chain input {\n"
                + "    type filter hook input priority filter; policy accept;\n"
                + "    iifname \"lo\" tcp dport @ports counter drop\n"
                + "    iifname \"lo\" tcp sport @ports counter drop\n"
                + "  }\n"
                + "}\n";
        try {
            filter.run(script, "-f", "-");
        } catch (IllegalStateException e) {
            throw new IllegalStateException(
                    "could not create the nftables table that cuts links (" + e.getMessage()
                            + "). The partition tests drop packets with nftables: they need root or CAP_NET_ADMIN and a kernel "
                            + "with nf_tables (CONFIG_NF_TABLES)",
                    e);
        }
        Runtime.getRuntime().addShutdownHook(filter.cleanUp);
        return filter;
    }

    /** Drops every packet to or from these loopback ports from now on (ports already cut stay cut). */
    public synchronized void cut(int... ports) {
        checkOpen();
        run(null, "add", "element", "inet", table, "ports", "{ " + list(ports) + " }");
        Arrays.stream(ports).forEach(cut::add);
    }

    /** Lets packets of these ports pass again (ports not cut are ignored). */
    public synchronized void heal(int... ports) {
        checkOpen();
        int[] wasCut = Arrays.stream(ports).filter(cut::contains).toArray();
        if (wasCut.length > 0) {
            run(null, "delete", "element", "inet", table, "ports", "{ " + list(wasCut) + " }");
            Arrays.stream(wasCut).forEach(cut::remove);
        }
    }

    /** The ports cut now. */
    public synchronized Set<Integer> cutPorts() {
        return Set.copyOf(cut);
    }

    /** Packets dropped so far, in both directions, over the table's life. */
    public synchronized long droppedPackets() {
        checkOpen();
        Matcher m = PACKETS.matcher(run(null, "list", "chain", "inet", table, "input"));
        long total = 0;
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }

    /** Deletes the table: every cut port passes again. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        cut.clear();
        deleteTable();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanUp);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs anyway, and deleting twice is harmless
        }
    }

    @Override
    public String toString() {
        return "PacketFilter[inet " + table + ", cut " + cutPorts() + "]";
    }

    private void deleteTable() {
        try {
            run(null, "delete", "table", "inet", table);
        } catch (IllegalStateException e) {
            // already gone
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private static String list(int[] ports) {
        return Arrays.stream(ports).mapToObj(Integer::toString).collect(Collectors.joining(", "));
    }

    private static String findNft() {
        for (String dir : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "nft"))) {
                return Path.of(dir, "nft").toString();
            }
        }
        throw new IllegalStateException("the nft command is not installed: the partition tests cut links by dropping "
                + "packets with nftables. Install it with scripts/prerequisites.sh or `apt-get install nftables` "
                + "(Debian package nftables)");
    }

    /** Runs {@code nft args...} (with {@code stdin}, if not null) and returns its output. */
    private String run(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(nft));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            if (stdin != null) {
                p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            p.getOutputStream().close();
            if (!p.waitFor(Timing.scaled(Duration.ofSeconds(10)).toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in time");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        String.join(" ", command) + " failed (exit " + p.exitValue() + "): " + out);
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
    }
}
