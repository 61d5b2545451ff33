package dev.tenure.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs valkey-cli once (used only for {@code --cluster create}), its output going to a file. */
final class ValkeyCli {

    private ValkeyCli() {}

    static void run(Path cli, List<String> arguments, Path output) {
        List<String> command = new ArrayList<>();
        command.add(cli.toString());
        command.addAll(arguments);
        String what = "valkey-cli " + arguments.get(0) + " " + arguments.get(1);
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            if (!process.waitFor(Timing.scaledMillis(60_000), TimeUnit.MILLISECONDS)) {
                ChildProcesses.kill(process);
                throw new IllegalStateException(what + " did not finish in time. Output:\n" + read(output));
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(what + " failed. Output:\n" + read(output));
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + cli + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + what, e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }
}
