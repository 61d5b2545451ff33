package dev.tenure.testkit;

import java.util.Optional;

/** Reads fields out of INFO text ({@code field:value} lines). */
final class Info {

    private Info() {}

    static Optional<String> field(String info, String name) {
        String prefix = name + ":";
        return info.lines()
                .filter(line -> line.startsWith(prefix))
                .map(line -> line.substring(prefix.length()).trim())
                .findFirst();
    }

    static boolean has(String info, String name, String value) {
        return field(info, name).filter(value::equals).isPresent();
    }

    /** Whether a primary's INFO replication lists a replica on {@code port} with {@code state=online}. */
    static boolean replicaOnline(String primaryInfo, int port) {
        return primaryInfo
                .lines()
                .filter(line -> line.startsWith("slave") && line.contains(":ip="))
                .anyMatch(line -> line.contains(",port=" + port + ",") && line.contains(",state=online,"));
    }
}
