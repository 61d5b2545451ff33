package dev.tenure.testkit;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Copies what is written to {@code System.err} (where slf4j-simple logs) while open, and still passes it on: how a test
 * counts the log lines of the code it runs in its own JVM. One at a time per JVM; not thread-safe to open or close.
 */
public final class StderrCapture implements AutoCloseable {

    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    /** Starts copying {@code System.err}. */
    public StderrCapture() {
        System.setErr(new PrintStream(
                new OutputStream() {
                    @Override
                    public void write(int b) {
                        copy.write(b);
                        original.write(b);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) {
                        copy.write(b, off, len);
                        original.write(b, off, len);
                    }
                },
                true,
                StandardCharsets.UTF_8));
    }

    /** The lines written so far. */
    public List<String> lines() {
        return copy.toString(StandardCharsets.UTF_8).lines().toList(); // ByteArrayOutputStream is synchronized
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
