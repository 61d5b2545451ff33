package dev.tenure.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import one.profiler.AsyncProfiler;
import one.profiler.Counter;

/**
 * {@code --profile DIR}: async-profiler CPU samples (every thread, Java and native frames, so GLIDE's Rust threads
 * too) over each measured window, saved as collapsed stacks ({@code DIR/<row>.collapsed}, for flame graphs) and
 * summed into components ({@link Component}) per unit of work. Off (a no-op) without {@code --profile}.
 */
final class Profiler {

    private static final long INTERVAL_NANOS = 1_000_000L;

    private final Path dir;
    private final AsyncProfiler profiler;
    private boolean running;

    private Profiler(Path dir, AsyncProfiler profiler) {
        this.dir = dir;
        this.profiler = profiler;
    }

    static Profiler of(String dir) throws IOException {
        if (dir == null) {
            return new Profiler(null, null);
        }
        Path p = Path.of(dir);
        Files.createDirectories(p);
        return new Profiler(p, AsyncProfiler.getInstance());
    }

    void start() throws IOException {
        if (profiler != null) {
            profiler.execute("start,event=cpu,interval=" + INTERVAL_NANOS + ",threads,cstack=vm");
            running = true;
        }
    }

    /** Stops and saves the window's stacks as {@code name.collapsed}; returns them (empty when off). */
    String stop(String name) throws IOException {
        if (!running) {
            return "";
        }
        running = false;
        String collapsed = profiler.dumpCollapsed(Counter.SAMPLES);
        profiler.execute("stop");
        Files.writeString(dir.resolve(name.replaceAll("[^A-Za-z0-9._-]", "_") + ".collapsed"), collapsed);
        return collapsed;
    }

    /** µs of CPU per unit by {@link Component}, from collapsed stacks sampled every millisecond of CPU. */
    static Map<String, Double> perUnit(String collapsed, long units) {
        if (collapsed.isEmpty()) {
            return Map.of();
        }
        Map<String, Long> samples = new LinkedHashMap<>();
        for (Component c : Component.values()) {
            samples.put(c.label, 0L);
        }
        for (String line : collapsed.split("\n")) {
            int sp = line.lastIndexOf(' ');
            if (sp > 0) {
                samples.merge(
                        Component.of(List.of(line.substring(0, sp).split(";"))).label,
                        Long.parseLong(line.substring(sp + 1).trim()),
                        Long::sum);
            }
        }
        Map<String, Double> perUnit = new LinkedHashMap<>();
        samples.forEach((k, v) -> perUnit.put(k, units == 0 ? Double.NaN : v * INTERVAL_NANOS / 1000.0 / units));
        return perUnit;
    }

    boolean enabled() {
        return profiler != null;
    }

    static String describe(Map<String, Double> perUnit) {
        StringBuilder sb = new StringBuilder();
        double total = perUnit.values().stream()
                .filter(v -> !Double.isNaN(v))
                .mapToDouble(Double::doubleValue)
                .sum();
        perUnit.forEach((k, v) -> {
            if (v >= 0.5) {
                sb.append(String.format(Locale.ROOT, "%n      %8s us  %4.1f%%  %s", Format.num(v), 100 * v / total, k));
            }
        });
        return String.format(Locale.ROOT, "%s us per unit in samples:", Format.num(total)) + sb;
    }

    /**
     * Where a CPU sample goes: by thread first (JIT, GC, GLIDE's timeout thread, GLIDE's Rust threads), then by the
     * frame nearest the leaf that names a component, so a sample inside CompletableFuture called from Tenure counts
     * as futures, and one in ArrayList called from Tenure as Tenure.
     */
    enum Component {
        JIT("JIT compiler threads (not counted as client CPU)"),
        GC("GC threads"),
        TIMER("GLIDE Java timeout thread (one timer task per call)"),
        RUST("GLIDE Rust threads (tokio I/O, callback dispatch; no Java frame)"),
        PARK("park: a thread waiting (futex, context switch)"),
        UNPARK("unpark: waking a waiting thread"),
        JNI_SUBMIT("JNI submit into GLIDE's core (protobuf bytes to Rust, wakes its I/O thread)"),
        JNI_REPLY("JNI reply conversion (Rust value to Java objects)"),
        GLIDE("GLIDE Java (command building, protobuf encoding, request registry, reply handling)"),
        FUTURES("CompletableFuture plumbing"),
        HARNESS("benchmark harness (loop, histograms)"),
        TENURE("Tenure (engine, watchdog, batcher, script arguments, reply parsing)"),
        PEER("peer library (Redisson, Lettuce, Netty, Spring, ShedLock)"),
        OTHER("other (JVM runtime, allocation, kernel without a Java caller)");

        final String label;

        Component(String label) {
            this.label = label;
        }

        static Component of(List<String> stack) {
            String thread = stack.get(0);
            if (thread.contains("CompilerThre")) {
                return JIT;
            }
            if (thread.contains("GC Thread") || thread.contains("G1 ")) {
                return GC;
            }
            if (thread.contains("GlideTimeoutScheduler")) {
                return TIMER;
            }
            for (int i = stack.size() - 1; i > 0; i--) {
                Component c = byFrame(stack.get(i));
                if (c != null) {
                    return c;
                }
            }
            // GLIDE's native threads are attached to the JVM as "Thread-N"; their samples without a Java component are
            // Rust work (and the kernel under it)
            return thread.startsWith("[Thread-")
                            || thread.startsWith("[glide")
                            || String.join(";", stack).contains("libglide_rs")
                    ? RUST
                    : OTHER;
        }

        private static Component byFrame(String f) {
            if (f.equals("Unsafe_Park") || f.startsWith("jdk/internal/misc/Unsafe.park")) {
                return PARK;
            }
            if (f.equals("Unsafe_Unpark") || f.startsWith("jdk/internal/misc/Unsafe.unpark")) {
                return UNPARK;
            }
            if (f.startsWith("Java_glide_internal_GlideNativeBridge_")) {
                return JNI_SUBMIT;
            }
            if (f.startsWith("Java_glide_ffi_")) {
                return JNI_REPLY;
            }
            if (f.startsWith("glide/")) {
                return GLIDE;
            }
            if (f.startsWith("java/util/concurrent/CompletableFuture")) {
                return FUTURES;
            }
            if (f.startsWith("dev/tenure/bench/")) {
                return HARNESS;
            }
            if (f.startsWith("dev/tenure/")) {
                return TENURE;
            }
            if (f.startsWith("org/redisson/")
                    || f.startsWith("io/lettuce/")
                    || f.startsWith("io/netty/")
                    || f.startsWith("org/springframework/")
                    || f.startsWith("net/javacrumbs/")) {
                return PEER;
            }
            return null;
        }
    }
}
