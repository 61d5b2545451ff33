package dev.tenure.examples;

import static dev.tenure.examples.ExampleRuns.assertLinesInOrder;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The database mode needs no Valkey GLIDE: the database-only example runs in a JVM whose class path is the examples'
 * runtime class path (written by the build to {@code target/runtime-classpath.txt}) without the {@code valkey-glide}
 * jar and without {@code tenure-valkey}, and {@code glide.api.GlideClient} cannot be loaded there.
 */
class DatabaseOnlyIT {

    @Test
    void coordinatedJobExample_runsWithoutGlideOnTheClassPath(@TempDir Path dir) throws Exception {
        List<String> full = new ArrayList<>(
                List.of(Files.readString(Path.of(ExampleRuns.requiredProperty("tenure.examples.runtimeClasspath")))
                        .trim()
                        .split(File.pathSeparator)));
        full.add(ExampleRuns.requiredProperty("tenure.examples.classes"));
        full.add(ExampleRuns.requiredProperty("tenure.examples.testClasses")); // WithoutGlide
        List<String> withoutGlide =
                full.stream().filter(e -> !isGlideOrTenureValkey(e)).toList();
        assertThat(full.stream().filter(DatabaseOnlyIT::isGlideOrTenureValkey).toList())
                .as("the entries taken out")
                .hasSize(2)
                .anyMatch(e -> Path.of(e).getFileName().toString().startsWith("valkey-glide-"))
                .anyMatch(e -> !Path.of(e).getFileName().toString().startsWith("valkey-glide-"));

        ExampleRuns.Output o = ExampleRuns.runToExit(
                dir,
                List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        String.join(File.pathSeparator, withoutGlide),
                        WithoutGlide.class.getName()));
        List<String> out = o.stdout();
        List<String> err = o.stderr();
        assertThat(err).isEmpty();
        assertLinesInOrder(
                out,
                "glide.api.GlideClient: not loadable",
                "first run: EXECUTED under epoch [1-9]\\d*, completed in its own transaction: true",
                "second run: SKIPPED_ALREADY_DONE, completed in its own transaction: false",
                "one-transaction run: EXECUTED under epoch [1-9]\\d*, completed in its own transaction: true",
                "settlement rows: 2");
    }

    /** The GLIDE jar, and tenure-valkey as a jar or (in a reactor build) as its module's classes directory. */
    private static boolean isGlideOrTenureValkey(String entry) {
        Path path = Path.of(entry);
        String name = path.getFileName().toString();
        return name.startsWith("valkey-glide-")
                || name.startsWith("tenure-valkey-")
                || path.endsWith(Path.of("tenure-valkey", "target", "classes"));
    }
}
