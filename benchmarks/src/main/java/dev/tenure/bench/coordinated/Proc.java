package dev.tenure.bench.coordinated;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** CPU time from /proc (Linux): per process (all its threads) and for the whole machine. */
public final class Proc {

    /** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
    private static final double TICKS = 100.0;

    private Proc() {}

    /** CPU seconds (user + system) a process has used, or 0 if it is gone. */
    public static double cpuSeconds(long pid) {
        String stat = stat(Path.of("/proc/" + pid + "/stat"));
        return stat == null ? 0 : cpu(stat);
    }

    /** A {@code stat} file of /proc, or null if it cannot be read (its process or thread ended). */
    private static String stat(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return null;
        }
    }

    /** The user + system CPU seconds of a {@code stat} line. */
    private static double cpu(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS;
    }

    /** One thread: its group (the name Linux keeps, digits as {@code #}) and the CPU seconds it has used. */
    public record Task(String group, double seconds) {}

    /** The threads of a process by Linux thread id (none if the process is gone). */
    public static Map<Long, Task> tasks(long pid) {
        Map<Long, Task> m = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                String s = stat(t.resolve("stat"));
                if (s != null) { // else the thread ended
                    String name =
                            s.substring(s.indexOf('(') + 1, s.lastIndexOf(')')).replaceAll("[0-9]+", "#");
                    m.put(Long.parseLong(t.getFileName().toString()), new Task(name, cpu(s)));
                }
            }
        } catch (IOException e) {
            // the process ended
        }
        return m;
    }

    /** The threads of the processes {@code pids} by Linux thread id (thread ids are unique across processes). */
    public static Map<Long, Task> tasks(Collection<Long> pids) {
        Map<Long, Task> m = new HashMap<>();
        for (long pid : pids) {
            m.putAll(tasks(pid));
        }
        return m;
    }

    /**
     * CPU seconds per thread group of a process: threads named alike (digits dropped, as Linux shows the first 15
     * characters of the name) are added up, so "tenure-jobs-3" and "tenure-jobs-7" count as "tenure-jobs-".
     */
    public static Map<String, Double> threadCpu(long pid) {
        Map<String, Double> m = new TreeMap<>();
        tasks(pid).values().forEach(t -> m.merge(t.group(), t.seconds(), Double::sum));
        return m;
    }

    /**
     * CPU seconds per thread group between two readings of {@link #tasks}: the sum of each thread's own change. A
     * thread that started in between counts from zero and one that ended in between loses its share, so a group never
     * goes negative (subtracting the groups' totals did, when a pool retired threads inside a window).
     */
    public static Map<String, Double> groupDelta(Map<Long, Task> before, Map<Long, Task> after) {
        Map<String, Double> m = new TreeMap<>();
        after.forEach((tid, t) -> {
            Task was = before.get(tid);
            double d = was != null && was.group().equals(t.group()) ? t.seconds() - was.seconds() : t.seconds();
            m.merge(t.group(), d, Double::sum);
        });
        return m;
    }

    /** CPU seconds of each process of {@code pids} that is still there, by pid. */
    public static Map<Long, Double> cpuByPid(Collection<Long> pids) {
        Map<Long, Double> m = new HashMap<>();
        for (long p : pids) {
            String s = stat(Path.of("/proc/" + p + "/stat"));
            if (s != null) {
                m.put(p, cpu(s));
            }
        }
        return m;
    }

    /**
     * CPU seconds between two readings of {@link #cpuByPid}: the sum of each process's own change, a process that
     * started in between counted from zero. A process that ended in between is left out (see {@link #ended}).
     */
    public static double delta(Map<Long, Double> before, Map<Long, Double> after) {
        double sum = 0;
        for (Map.Entry<Long, Double> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0.0);
        }
        return sum;
    }

    /** How many processes of the first reading were gone at the second: their CPU after the first is not counted. */
    public static int ended(Map<Long, Double> before, Map<Long, Double> after) {
        return (int) before.keySet().stream().filter(p -> !after.containsKey(p)).count();
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
