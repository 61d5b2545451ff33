package dev.tenure.bench.coordinated;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** One child JVM running {@link Node}: started, told when to go, and read for its READY and RESULT lines. */
final class NodeProcess implements AutoCloseable {

    private final Process process;
    private final Writer stdin;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path log;

    NodeProcess(List<String> jvmOptions, Map<String, String> args, Path log) throws IOException {
        this.log = log;
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Node.class.getName());
        args.forEach((k, v) -> cmd.add(k + "=" + v));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        process = pb.start();
        stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            lines.add(line);
                        }
                    } catch (IOException ignored) {
                        // the process ended
                    }
                    lines.add("EOF");
                },
                "node-reader-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    long pid() {
        return process.pid();
    }

    /** Waits for a line starting with {@code prefix}; other lines go to the log's reader, i.e. are dropped here. */
    String await(String prefix, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new IllegalStateException(
                        "node " + pid() + ": no " + prefix + " within " + timeoutSeconds + " s (log " + log + ")");
            }
            if (line.startsWith(prefix)) {
                return line;
            }
            if (line.startsWith("FAILED") || line.equals("EOF")) {
                throw new IllegalStateException(
                        "node " + pid() + " failed before " + prefix + ": " + line + " (log " + log + ")");
            }
        }
    }

    void go(long warmEnd, long end) throws IOException {
        send("GO " + warmEnd + " " + end);
    }

    /** Writes one line to the node's standard input. */
    void send(String line) throws IOException {
        stdin.write(line + "\n");
        stdin.flush();
    }

    /** The RESULT line's key=value pairs. */
    static Map<String, String> parse(String result) {
        Map<String, String> m = new HashMap<>();
        for (String kv : result.substring("RESULT ".length()).split(" ")) {
            int eq = kv.indexOf('=');
            m.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return m;
    }

    @Override
    public void close() throws InterruptedException {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
