package dev.tenure.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** One line of {@code CLUSTER NODES}: {@code id ip:port@bus flags master ping pong epoch link slot...}. */
record ClusterNodeLine(String id, int port, Set<String> flags, String masterId, List<String> slotRanges) {

    static List<ClusterNodeLine> parseAll(String clusterNodes) {
        List<ClusterNodeLine> lines = new ArrayList<>();
        for (String line : clusterNodes.split("\n")) {
            if (!line.isBlank()) {
                lines.add(parse(line.trim()));
            }
        }
        return lines;
    }

    static ClusterNodeLine parse(String line) {
        String[] fields = line.split(" ");
        String address = fields[1].split("[@,]")[0];
        int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        List<String> slots = new ArrayList<>();
        for (int i = 8; i < fields.length; i++) {
            if (!fields[i].startsWith("[")) { // skip importing/migrating markers
                slots.add(fields[i]);
            }
        }
        return new ClusterNodeLine(fields[0], port, Set.of(fields[2].split(",")), fields[3], List.copyOf(slots));
    }

    boolean isMyself() {
        return flags.contains("myself");
    }

    boolean isPrimary() {
        return flags.contains("master");
    }

    boolean isFailed() {
        return flags.contains("fail") || flags.contains("fail?");
    }

    boolean isReplicaOf(String primaryId) {
        return (flags.contains("slave") || flags.contains("replica")) && masterId.equals(primaryId);
    }

    boolean ownsSlot(int slot) {
        for (String range : slotRanges) {
            int dash = range.indexOf('-');
            int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
            int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
            if (slot >= from && slot <= to) {
                return true;
            }
        }
        return false;
    }
}
