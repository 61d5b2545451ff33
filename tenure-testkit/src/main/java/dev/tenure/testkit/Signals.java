package dev.tenure.testkit;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/** Sends POSIX signals (SIGSTOP, SIGCONT, SIGTERM) through {@code kill}: the JDK cannot send the first two itself. */
final class Signals {

    private Signals() {}

    static void stop(long pid) {
        send("STOP", pid);
    }

    static void cont(long pid) {
        send("CONT", pid);
    }

    static void term(long pid) {
        send("TERM", pid);
    }

    private static void send(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + pid + " did not finish in 10 s");
            }
            if (kill.exitValue() != 0) {
                String output = new String(kill.getInputStream().readAllBytes()).trim();
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run kill -" + signal + " " + pid + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending SIG" + signal + " to " + pid, e);
        }
    }
}
