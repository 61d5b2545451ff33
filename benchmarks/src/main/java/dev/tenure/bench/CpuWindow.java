package dev.tenure.bench;

import dev.tenure.bench.coordinated.Proc;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU spent over one measured window: this JVM's threads by group ({@code /proc/self/task}, names as Linux keeps them,
 * digits as {@code #}), and valkey-server's own CPU ({@code INFO cpu}). Every row of a table is measured this way, so
 * the figures are CPU per operation of the same run, which suffer less from other tenants' load than rates do.
 */
final class CpuWindow {

    private static final long PID = ProcessHandle.current().pid();

    private final List<Long> pids;
    private final Map<Long, Proc.Task> threads;
    private final double server;

    private CpuWindow(List<Long> pids, ValkeyAdmin admin) throws Exception {
        this.pids = pids;
        this.threads = Proc.tasks(pids);
        this.server = admin == null ? 0 : admin.serverCpuSeconds();
    }

    /** Snapshots this JVM's threads and, if {@code admin} is given, the server's CPU. */
    static CpuWindow start(ValkeyAdmin admin) throws Exception {
        return new CpuWindow(List.of(PID), admin);
    }

    /** Snapshots the threads of the processes {@code pids} (thread groups added up over them) and the server's CPU. */
    static CpuWindow start(ValkeyAdmin admin, List<Long> pids) throws Exception {
        return new CpuWindow(pids, admin);
    }

    /** The CPU used since {@link #start}. */
    Usage stop(ValkeyAdmin admin) throws Exception {
        Map<String, Double> d = new TreeMap<>();
        Proc.groupDelta(threads, Proc.tasks(pids)).forEach((k, v) -> {
            if (v > 0) {
                d.put(k, v);
            }
        });
        return new Usage(d, admin == null ? 0 : admin.serverCpuSeconds() - server);
    }

    /**
     * CPU seconds by thread group of the client JVM, and of the server.
     *
     * @param threads       group name to CPU seconds in the window
     * @param serverSeconds valkey-server's CPU seconds in the window (0 when not measured)
     */
    record Usage(Map<String, Double> threads, double serverSeconds) {

        static final Usage NONE = new Usage(Map.of(), 0);

        /** The JIT's compiler threads: a short benchmark pays for compilation a long-running service does not. */
        static boolean jit(String group) {
            return group.contains("CompilerThre");
        }

        /** Client CPU seconds without the JIT compiler threads. */
        double clientSeconds() {
            return threads.entrySet().stream()
                    .filter(e -> !jit(e.getKey()))
                    .mapToDouble(Map.Entry::getValue)
                    .sum();
        }

        double jitSeconds() {
            return threads.entrySet().stream()
                    .filter(e -> jit(e.getKey()))
                    .mapToDouble(Map.Entry::getValue)
                    .sum();
        }

        /** Client CPU (without JIT) per unit, in µs. */
        double clientMicrosPer(long units) {
            return units == 0 ? Double.NaN : clientSeconds() * 1e6 / units;
        }

        double serverMicrosPer(long units) {
            return units == 0 ? Double.NaN : serverSeconds * 1e6 / units;
        }

        /** "group µs, ..." per unit, largest first, groups under 1% of the client's CPU left out. */
        String perUnit(long units) {
            if (units == 0) {
                return "-";
            }
            double total = clientSeconds() + jitSeconds();
            Map<String, Double> sorted = new LinkedHashMap<>();
            threads.entrySet().stream()
                    .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
                    .filter(e -> e.getValue() >= total / 100)
                    .forEach(e -> sorted.put(e.getKey(), e.getValue()));
            StringBuilder sb = new StringBuilder();
            sorted.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ")
                    .append(String.format(Locale.ROOT, "%s %s", k, Format.num(v * 1e6 / units))));
            return sb.toString();
        }
    }
}
