package dev.tenure.bench;

import java.util.Map;

/**
 * One measured window of a row: the server's command counts, client and server CPU ({@link CpuWindow}) and, with
 * {@code --profile}, CPU samples ({@link Profiler}), all taken at the same two moments.
 */
final class Window {

    private final ValkeyAdmin admin;
    private final Profiler profiler;
    private final Map<String, Long> commandsBefore;
    private final CpuWindow cpu;

    private Window(ValkeyAdmin admin, Profiler profiler) throws Exception {
        this.admin = admin;
        this.profiler = profiler;
        this.commandsBefore = admin.commandCalls();
        this.cpu = CpuWindow.start(admin);
        profiler.start();
    }

    static Window open(ValkeyAdmin admin, Profiler profiler) throws Exception {
        return new Window(admin, profiler);
    }

    /** Ends the window; {@code name} names the saved profile. */
    Measured close(String name) throws Exception {
        String stacks = profiler.stop(name);
        CpuWindow.Usage usage = cpu.stop(admin);
        return new Measured(ValkeyAdmin.delta(commandsBefore, admin.commandCalls()), usage, stacks);
    }

    /**
     * What a window measured.
     *
     * @param commands server commands by name (INFO commandstats delta, commands inside scripts included)
     * @param cpu      client CPU by thread group and server CPU
     * @param stacks   collapsed CPU stacks ({@code --profile}), or empty
     */
    record Measured(Map<String, Long> commands, CpuWindow.Usage cpu, String stacks) {

        static final Measured NONE = new Measured(Map.of(), CpuWindow.Usage.NONE, "");

        Map<String, Double> profile(long units) {
            return Profiler.perUnit(stacks, units);
        }
    }
}
