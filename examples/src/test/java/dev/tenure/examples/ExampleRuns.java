package dev.tenure.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs an example's {@code main} the way its one command does (a fresh JVM) and checks what it printed. */
final class ExampleRuns {

    private ExampleRuns() {}

    /** Runs {@code example} in a child JVM with this JVM's class path; its stdout lines, once it exited with 0. */
    static List<String> run(Class<?> example) {
        // tag::testkit-process[]
        try (JvmProcess process = JvmProcess.start(example)) {            // java -cp <this class path> example
            OptionalInt exit = process.waitFor(Timing.scaled(Duration.ofSeconds(90)));
            assertThat(exit).as("exit of %s; stdout %s; stderr %s", example.getSimpleName(), process.stdoutLines(),
                    process.stderrLines()).hasValue(0);
            assertThat(process.stderrLines()).as("stderr (warnings, errors)").isEmpty();
            return process.stdoutLines();
        }
        // end::testkit-process[]
    }

    /**
     * {@link #run(Class)} for an example whose warnings are part of what it shows: every stderr line must match
     * {@code expectedWarning}; returns stdout, then the stderr lines.
     */
    static List<String> runWarning(Class<?> example, String expectedWarning) {
        try (JvmProcess process = JvmProcess.start(example)) {
            OptionalInt exit = process.waitFor(Timing.scaled(Duration.ofSeconds(90)));
            assertThat(exit)
                    .as(
                            "exit of %s; stdout %s; stderr %s",
                            example.getSimpleName(), process.stdoutLines(), process.stderrLines())
                    .hasValue(0);
            assertThat(process.stderrLines())
                    .as("stderr (only the expected warnings)")
                    .allMatch(l -> l.matches(expectedWarning));
            List<String> all = new java.util.ArrayList<>(process.stdoutLines());
            all.addAll(process.stderrLines());
            return all;
        }
    }

    /**
     * Asserts that {@code lines} hold, in this order (other lines may come between), a line matching each of
     * {@code patterns}; returns the matchers, so a test can read their groups.
     */
    /**
     * Runs {@code command} (a {@code java} command line) to its end, within 60 s (scaled; killed after that), with its
     * output in {@code dir}; fails unless it exited with 0. Returns its stdout and stderr lines.
     */
    static Output runToExit(java.nio.file.Path dir, List<String> command) throws Exception {
        java.nio.file.Path out = dir.resolve("stdout");
        java.nio.file.Path err = dir.resolve("stderr");
        Process p = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        boolean exited = p.waitFor(Timing.scaledMillis(60_000), java.util.concurrent.TimeUnit.MILLISECONDS);
        if (!exited) {
            p.destroyForcibly();
        }
        Output o = new Output(java.nio.file.Files.readAllLines(out), java.nio.file.Files.readAllLines(err));
        assertThat(exited && p.exitValue() == 0)
                .as("exited with 0; stdout %s; stderr %s", o.stdout(), o.stderr())
                .isTrue();
        return o;
    }

    /** A finished child's stdout and stderr lines. */
    record Output(List<String> stdout, List<String> stderr) {}

    static List<Matcher> assertLinesInOrder(List<String> lines, String... patterns) {
        Matcher[] found = new Matcher[patterns.length];
        int next = 0;
        for (String line : lines) {
            if (next < patterns.length) {
                Matcher m = Pattern.compile(patterns[next]).matcher(line);
                if (m.matches()) {
                    found[next++] = m;
                }
            }
        }
        if (next < patterns.length) {
            fail(
                    "no line matching '%s' (after the earlier patterns) in:%n%s",
                    patterns[next], String.join("\n", lines));
        }
        return List.of(found);
    }

    /** A system property that examples/pom.xml hands to failsafe; fails saying so when it is missing. */
    static String requiredProperty(String property) {
        String value = System.getProperty(property);
        assertThat(value)
                .as(
                        "system property %s, set by examples/pom.xml for failsafe: run this test with "
                                + "mvn verify -pl examples -am",
                        property)
                .isNotBlank();
        return value;
    }
}
