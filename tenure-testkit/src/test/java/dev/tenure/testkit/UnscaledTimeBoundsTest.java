package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every time bound in the project's tests goes through {@link Timing}, so a loaded machine stretches them all with one
 * multiplier instead of failing (a resigning leader's successor measured 1,811 ms against an unscaled 1,000 ms bound on
 * a busy machine). This scans the test sources of every module, and the test kit's own sources, for the obvious forms
 * of an unscaled bound and names each one by file and line. A line that mentions {@code Timing.} passes; a deliberate
 * exception carries a comment {@code // unscaled: <why>} on the same line. Benchmarks measure speed and are not scanned.
 */
class UnscaledTimeBoundsTest {

    private record Rule(String name, Pattern pattern) {}

    private static final Pattern TIME_WORDS = Pattern.compile(
            "(?i)(duration|millis|nanos|\\bms\\b|took|wait|elapsed|\\bgap|latency|seconds|after\\b|wake)");

    private static final String UNIT = "\\s*(java\\.util\\.concurrent\\.)?(TimeUnit\\.)?"
            + "(NANOSECONDS|MICROSECONDS|MILLISECONDS|SECONDS|MINUTES)\\)";

    private static final List<Rule> RULES = List.of(
            new Rule("Awaitility atMost", Pattern.compile("\\.atMost\\(\\s*(Duration\\.of|\\d)")),
            new Rule(
                    "a wait with a fixed timeout",
                    Pattern.compile("\\.(get|await|poll|awaitTermination|waitFor|tryAcquire|join)\\(\\s*[\\d_]+L?\\s*,"
                            + UNIT)),
            new Rule("a thread join with a fixed timeout", Pattern.compile("\\.join\\(\\s*[\\d_]+L?\\s*\\)")),
            new Rule("JUnit @Timeout", Pattern.compile("@Timeout\\b")),
            new Rule(
                    "a future's timeout",
                    Pattern.compile("\\b(orTimeout|completeOnTimeout|assertTimeout|assertTimeoutPreemptively)\\(")),
            new Rule(
                    "a child process or failover wait with a fixed Duration",
                    Pattern.compile("\\b(awaitStdoutLine|waitFor|awaitFailover)\\(.*Duration\\.of")),
            new Rule(
                    "a deadline at a fixed offset",
                    Pattern.compile(
                            "(currentTimeMillis|nanoTime)\\(\\)\\s*\\+\\s*([\\d_]+|Duration\\.of|TimeUnit\\.)")),
            new Rule(
                    "a loop until a fixed offset",
                    Pattern.compile("(currentTimeMillis|nanoTime)\\(\\)\\s*<=?\\s*\\w+\\s*\\+\\s*[\\d_]+")));

    /** An upper bound that is a literal (a number, a {@code Duration.of...}, or something plus a number). */
    private static final Pattern UPPER_BOUND = Pattern.compile(
            "\\.(isLessThan|isLessThanOrEqualTo|isCloseTo)\\("
                    + "(\\s*([\\d_]+L?|Duration\\.of)|[^;]*\\+\\s*[\\d_]+L?\\s*\\))|\\.isBetween\\([^;]*,[^;,]*[\\d_]+L?\\s*\\)");

    @Test
    void everyTimeBoundInTheTests_goesThroughTiming() throws IOException {
        Path root = repositoryRoot();
        List<String> found = new ArrayList<>();
        for (Path file : sources(root)) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                String code = line.strip();
                if (code.startsWith("*")
                        || code.startsWith("//")
                        || code.startsWith("/*")
                        || line.contains("Timing.")
                        || line.contains("// unscaled:")) {
                    continue;
                }
                String unquoted = line.replaceAll("\"([^\"\\\\]|\\\\.)*\"", "\"\"");
                for (Rule rule : RULES) {
                    if (rule.pattern().matcher(unquoted).find()) {
                        found.add(root.relativize(file) + ":" + (i + 1) + ": " + rule.name() + ": " + code);
                    }
                }
                if (UPPER_BOUND.matcher(unquoted).find()
                        && TIME_WORDS.matcher(unquoted).find()) {
                    found.add(root.relativize(file) + ":" + (i + 1) + ": an elapsed time under a fixed bound: " + code);
                }
            }
        }
        assertThat(found)
                .as("time bounds that do not go through Timing.scaled/scaledMillis (scale them, or mark a "
                        + "deliberate exception with // unscaled: <why>)")
                .isEmpty();
    }

    @Test
    void theScan_findsTheFormsItLooksFor() {
        List<String> unscaled = List.of(
                "await().atMost(Duration.ofSeconds(5)).until(done::get);",
                "f.get(10, TimeUnit.SECONDS);",
                "latch.await(5, SECONDS);",
                "ex.awaitTermination(60, TimeUnit.SECONDS);",
                "f.get(10, java.util.concurrent.TimeUnit.SECONDS);",
                "thread.join(5_000);",
                "assertThat(waitedMs).isBetween(250L, 1500L);",
                "assertThat(ms).isLessThan(REQUEST_TIMEOUT.toMillis() + 1000);",
                "@Timeout(10)",
                "future.orTimeout(2, TimeUnit.SECONDS);",
                "p.awaitStdoutLine(\"DONE\"::equals, Duration.ofSeconds(60));",
                "long deadline = System.currentTimeMillis() + 15_000;",
                "while (next == null && System.currentTimeMillis() < killedAt + 15_000) {",
                "assertThat(tookMs).isLessThanOrEqualTo(1000);",
                "assertThat(gap).isLessThan(Duration.ofMillis(500));");
        for (String line : unscaled) {
            boolean flagged =
                    RULES.stream().anyMatch(r -> r.pattern().matcher(line).find())
                            || UPPER_BOUND.matcher(line).find()
                                    && TIME_WORDS.matcher(line).find();
            assertThat(flagged).as("flags %s", line).isTrue();
        }
        assertThat(UPPER_BOUND.matcher("assertThat(rows).isLessThan(10);").find()
                        && TIME_WORDS
                                .matcher("assertThat(rows).isLessThan(10);")
                                .find())
                .as("a count is no time")
                .isFalse();
    }

    /** The reactor's root: the nearest directory upwards that holds the test kit module. */
    private static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("tenure-testkit")) && Files.exists(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException(
                "could not find the repository root above " + Path.of("").toAbsolutePath());
    }

    /** Every module's test sources and the test kit's sources, benchmarks left out. */
    private static List<Path> sources(Path root) throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(p -> p.toString().endsWith(".java"))
                    .filter(p ->
                            !p.toString().contains("/target/") && !p.toString().contains("/.git/"))
                    .filter(p -> p.toString().contains("/src/test/java/")
                            || p.startsWith(root.resolve("tenure-testkit/src/main/java")))
                    .filter(p -> !p.startsWith(root.resolve("benchmarks")))
                    .filter(p -> !p.getFileName().toString().endsWith("Benchmark.java"))
                    .filter(p -> !p.getFileName().toString().equals("UnscaledTimeBoundsTest.java"))
                    .forEach(files::add);
        }
        assertThat(files).as("test sources found under " + root).hasSizeGreaterThan(50);
        return files;
    }
}
