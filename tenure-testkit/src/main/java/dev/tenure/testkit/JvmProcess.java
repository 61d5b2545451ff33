package dev.tenure.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A child JVM running {@code mainClass} with this JVM's class path, for tests where several processes compete (and
 * one of them gets killed or frozen). Its stdout and stderr go to files in a temp directory, readable at any time.
 *
 * <pre>{@code
 * try (JvmProcess worker = JvmProcess.start(Worker.class, "job-a")) {
 *     worker.awaitStdoutLine(line -> line.startsWith("ACQUIRED"), Timing.scaled(Duration.ofSeconds(10)));
 *     worker.kill();
 * }
 * }</pre>
 *
 * <p>The child uses the same {@code java} as this JVM ({@code java.home}) and inherits the
 * {@value Timing#PROPERTY} system property. Thread-safe; {@link #close()} kills the child if it still runs and
 * deletes its output files. A JVM shutdown hook kills children a test forgot to close.
 */
public final class JvmProcess implements AutoCloseable {

    private final Process process;
    private final Path dir;
    private boolean closed;

    private JvmProcess(Process process, Path dir) {
        this.process = process;
        this.dir = dir;
    }

    /**
     * This JVM's class path for a child JVM. A library module's own tests run on the module path (Surefire and Failsafe
     * put a module with a {@code module-info} there), so its classes and their dependencies are in
     * {@code jdk.module.path}, not {@code java.class.path}: the child gets both, on its class path.
     */
    public static String classPath() {
        String classPath = System.getProperty("java.class.path", "");
        String modulePath = System.getProperty("jdk.module.path", "");
        if (modulePath.isEmpty()) {
            return classPath;
        }
        return classPath.isEmpty() ? modulePath : modulePath + File.pathSeparator + classPath;
    }

    /** Starts {@code java -cp <this class path> mainClass args...}. */
    public static JvmProcess start(Class<?> mainClass, String... args) {
        return start(List.of(), mainClass.getName(), List.of(args));
    }

    /** Starts {@code java jvmOptions... -cp <this class path> mainClassName args...}, e.g. with {@code -Xmx64m}. */
    public static JvmProcess start(List<String> jvmOptions, String mainClassName, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String multiplier = System.getProperty(Timing.PROPERTY);
        if (multiplier != null) {
            command.add("-D" + Timing.PROPERTY + "=" + multiplier);
        }
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath(), mainClassName));
        command.addAll(args);
        Path dir = ChildProcesses.newTempDirectory("tenure-jvm-");
        try {
            Process process = new ProcessBuilder(command)
                    .redirectOutput(dir.resolve("stdout.log").toFile())
                    .redirectError(dir.resolve("stderr.log").toFile())
                    .start();
            ChildProcesses.track(process);
            return new JvmProcess(process, dir);
        } catch (IOException e) {
            ChildProcesses.deleteDirectory(dir);
            throw new IllegalStateException("could not start a JVM for " + mainClassName + ": " + e.getMessage(), e);
        }
    }

    /** The child's process id. */
    public long pid() {
        return process.pid();
    }

    /** Whether the child still runs (a paused child counts as running). */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits up to {@code timeout} for the child to exit; its exit code, or empty if it still runs. */
    public OptionalInt waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    ? OptionalInt.of(process.exitValue())
                    : OptionalInt.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + this, e);
        }
    }

    /** SIGKILL, then waits until the child is gone. Idempotent. */
    public void kill() {
        ChildProcesses.kill(process);
    }

    /**
     * SIGTERM, as an orchestrator stops an application (a rolling deploy): the child runs its shutdown hooks (a Boot
     * application closes its context) and exits. Returns at once; {@link #waitFor} waits for the exit.
     */
    public void terminate() {
        Signals.term(process.pid());
    }

    /**
     * SIGSTOP: the child freezes mid-instruction, like a long GC pause.
     *
     * @throws IllegalStateException if the child has exited (kill would stop an exited, unreaped child "successfully"),
     *                               with its exit code and the end of its output
     */
    public void pause() {
        requireAlive("SIGSTOP");
        Signals.stop(process.pid());
    }

    /** SIGCONT after {@link #pause()}; throws as {@link #pause()} does if the child has exited meanwhile. */
    public void resume() {
        requireAlive("SIGCONT");
        Signals.cont(process.pid());
    }

    private void requireAlive(String signal) {
        if (!process.isAlive()) {
            List<String> out = stdoutLines();
            List<String> err = stderrLines();
            throw new IllegalStateException("child " + process.pid() + " exited with " + process.exitValue()
                    + " before " + signal + "; its last stdout lines: "
                    + out.subList(Math.max(0, out.size() - 10), out.size()) + "; its last stderr lines: "
                    + err.subList(Math.max(0, err.size() - 20), err.size()));
        }
    }

    /** Everything the child has printed to stdout so far, line by line. */
    public List<String> stdoutLines() {
        return lines("stdout.log");
    }

    /** Everything the child has printed to stderr so far, line by line. */
    public List<String> stderrLines() {
        return lines("stderr.log");
    }

    /**
     * Waits until some stdout line matches and returns it.
     *
     * @throws IllegalStateException if the child exits or {@code timeout} passes first (with its output)
     */
    public String awaitStdoutLine(Predicate<String> matcher, Duration timeout) {
        String[] found = new String[1];
        Await.until(
                timeout,
                () -> "a matching stdout line from " + this + "; stdout: " + stdoutLines() + "; stderr: "
                        + stderrLines(),
                () -> {
                    boolean exited = !process.isAlive();
                    found[0] =
                            stdoutLines().stream().filter(matcher).findFirst().orElse(null);
                    if (found[0] == null && exited) {
                        throw new IllegalStateException("the child exited with " + process.exitValue());
                    }
                    return found[0] != null;
                });
        return found[0];
    }

    /** Kills the child if it still runs and deletes its output files. Idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            kill();
            ChildProcesses.deleteDirectory(dir);
        }
    }

    @Override
    public String toString() {
        return "JvmProcess[pid " + process.pid() + (process.isAlive() ? ", running]" : ", exited]");
    }

    private List<String> lines(String file) {
        try {
            return Files.readAllLines(dir.resolve(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the child's " + file + ": " + e.getMessage(), e);
        }
    }
}
