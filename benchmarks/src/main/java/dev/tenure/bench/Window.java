package dev.tenure.bench;

import java.util.Map;

/** One measured window of a row: the server's command counts and client and server CPU ({@link CpuWindow}), taken at the same two moments. */
final class Window {

    private final ValkeyAdmin admin;
    private final Map<String, Long> commandsBefore;
    private final CpuWindow cpu;

    private Window(ValkeyAdmin admin) throws Exception {
        this.admin = admin;
        this.commandsBefore = admin.commandCalls();
        this.cpu = CpuWindow.start(admin);
    }

    static Window open(ValkeyAdmin admin) throws Exception {
        return new Window(admin);
    }

    /** Ends the window. */
    Measured close() throws Exception {
        CpuWindow.Usage usage = cpu.stop(admin);
        return new Measured(ValkeyAdmin.delta(commandsBefore, admin.commandCalls()), usage);
    }

    /**
     * What a window measured.
     *
     * @param commands server commands by name (INFO commandstats delta, commands inside scripts included)
     * @param cpu      client CPU by thread group and server CPU
     */
    record Measured(Map<String, Long> commands, CpuWindow.Usage cpu) {

        static final Measured NONE = new Measured(Map.of(), CpuWindow.Usage.NONE);
    }
}
