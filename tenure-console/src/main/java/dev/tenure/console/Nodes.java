package dev.tenure.console;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names the node (process) behind a row: its recorded node name ({@code node} column, e.g. {@code web-3/invoicing/22418};
 * see {@code dev.tenure.integration.NodeName}) when it has one, else the process behind its owner id. Rows written before node
 * names (schema version 5) have none. Tenure's owner ids are unique per acquisition, {@code
 * <16 hex process id>-<pid>-<engine>.<counter>}; the process part names the node, so consecutive runs of one process
 * count as one node. Other owner ids (set by hand, other tools) are their own node.
 */
final class Nodes {

    private static final Pattern OWNER = Pattern.compile("([0-9a-f]{16})-(\\d+)-\\d+\\.\\d+");
    /** A Valkey lease value {@code q:<engine id>}: a turn passed to a waiting process, not yet taken (see LeaseScript). */
    private static final Pattern TURN = Pattern.compile("q:([0-9a-f]{16})-(\\d+)-\\d+\\.");

    private Nodes() {}

    /** {@code nodeName} when recorded, else {@link #of(String) of(owner)}; null when both are null. */
    static String named(String nodeName, String owner) {
        return nodeName != null ? nodeName : of(owner);
    }

    /** {@code pid 12345 (3f9a)} for a Tenure owner id, else the owner itself; null for null. */
    static String of(String owner) {
        if (owner == null) {
            return null;
        }
        Matcher t = TURN.matcher(owner);
        if (t.matches()) {
            return "turn passed to " + node(t);
        }
        Matcher m = OWNER.matcher(owner);
        return m.matches() ? node(m) : owner;
    }

    /** {@code pid 12345 (3f9a)} from a match whose groups are the process id and the pid. */
    private static String node(Matcher m) {
        return "pid " + m.group(2) + " (" + m.group(1).substring(0, 4) + ")";
    }
}
