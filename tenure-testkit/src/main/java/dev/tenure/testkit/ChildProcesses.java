package dev.tenure.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Owns every process and temp directory the test kit starts in this JVM. A shutdown hook kills what is still running
 * and deletes what is still on disk, so a crashed or aborted test run leaves no stray servers behind.
 */
final class ChildProcesses {

    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
    private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::killAll, "tenure-testkit-reaper"));
    }

    private ChildProcesses() {}

    static void track(Process process) {
        PROCESSES.add(process);
    }

    /** Kills {@code process} with SIGKILL (works on a stopped process too) and waits until it is gone. */
    static void kill(Process process) {
        process.destroyForcibly();
        try {
            if (!process.waitFor(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("process " + process.pid() + " survived SIGKILL for 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing process " + process.pid(), e);
        }
        PROCESSES.remove(process);
    }

    static Path newTempDirectory(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            DIRECTORIES.add(dir);
            return dir;
        } catch (IOException e) {
            throw new IllegalStateException("could not create a temp directory: " + e.getMessage(), e);
        }
    }

    /** Deletes {@code dir} and everything under it; best effort. */
    static void deleteDirectory(Path dir) {
        DIRECTORIES.remove(dir);
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // best effort: a leftover temp directory is harmless
        }
    }

    private static void killAll() {
        for (Process process : PROCESSES) {
            process.destroyForcibly();
        }
        for (Process process : PROCESSES) {
            try {
                process.waitFor(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        DIRECTORIES.forEach(ChildProcesses::deleteDirectory);
    }
}
