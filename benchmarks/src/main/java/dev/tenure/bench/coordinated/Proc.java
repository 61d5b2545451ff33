package dev.tenure.bench.coordinated;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;

/** CPU time from /proc (Linux): per process (all its threads) and for the whole machine. */
public final class Proc {

    /** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
    private static final double TICKS = 100.0;

    private Proc() {}

    /** CPU seconds (user + system) a process has used, or 0 if it is gone. */
    public static double cpuSeconds(long pid) {
        try {
            String s = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * CPU seconds per thread group of a process: threads named alike (digits dropped, as Linux shows the first 15
     * characters of the name) are added up, so "tenure-jobs-3" and "tenure-jobs-7" count as "tenure-jobs-".
     */
    public static java.util.Map<String, Double> threadCpu(long pid) {
        java.util.Map<String, Double> m = new java.util.TreeMap<>();
        try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String s = Files.readString(t.resolve("stat"));
                    String name =
                            s.substring(s.indexOf('(') + 1, s.lastIndexOf(')')).replaceAll("[0-9]+", "#");
                    String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
                    m.merge(name, (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS, Double::sum);
                } catch (IOException | RuntimeException e) {
                    // the thread ended
                }
            }
        } catch (IOException e) {
            // the process ended
        }
        return m;
    }

    static double cpuSeconds(Collection<Long> pids) {
        double sum = 0;
        for (long p : pids) {
            sum += cpuSeconds(p);
        }
        return sum;
    }

    /** {busy, total} CPU seconds of the whole machine since boot (all cores; iowait counts as idle). */
    static double[] machine() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long user = Long.parseLong(f[1]);
            long nice = Long.parseLong(f[2]);
            long system = Long.parseLong(f[3]);
            long idle = Long.parseLong(f[4]);
            long iowait = Long.parseLong(f[5]);
            long irq = Long.parseLong(f[6]);
            long softirq = Long.parseLong(f[7]);
            long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
            long busy = user + nice + system + irq + softirq + steal;
            return new double[] {busy / TICKS, (busy + idle + iowait) / TICKS};
        } catch (IOException | RuntimeException e) {
            return new double[] {0, 0};
        }
    }

    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }
}
