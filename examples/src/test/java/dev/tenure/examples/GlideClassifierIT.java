package dev.tenure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.Timing;
import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a user picks Valkey GLIDE's native jar: the consumer POM in {@code src/test/resources/glide-consumer} (the
 * snippets of docs/modules.md: the os-maven-plugin extension and {@code <classifier>${os.detected.classifier}</classifier>}) is
 * resolved by a child Maven, offline, with the same maven-dependency-plugin the build runs; the GLIDE jar it picks
 * must be the one GLIDE publishes for this platform, and must carry a native library this JVM can load by name.
 */
class GlideClassifierIT {

    @Test
    void consumerPom_withOsDetectedClassifier_resolvesThisPlatformsGlideJar(@TempDir Path dir) throws Exception {
        try (InputStream pom = Objects.requireNonNull(getClass().getResourceAsStream("/glide-consumer/pom.xml"))) {
            Files.copy(pom, dir.resolve("pom.xml"));
        }
        String mvn = Path.of(
                        ExampleRuns.requiredProperty("tenure.examples.mavenHome"),
                        "bin",
                        File.separatorChar == '\\' ? "mvn.cmd" : "mvn")
                .toString();
        ProcessBuilder b = new ProcessBuilder(
                        mvn,
                        "-o",
                        "-B",
                        "-q",
                        "-f",
                        dir.resolve("pom.xml").toString(),
                        "-Dmaven.repo.local=" + ExampleRuns.requiredProperty("tenure.examples.localRepository"),
                        "org.apache.maven.plugins:maven-dependency-plugin:"
                                + ExampleRuns.requiredProperty("tenure.examples.dependencyPlugin") + ":build-classpath",
                        "-Dmdep.outputFile=" + dir.resolve("classpath.txt"))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("mvn.log").toFile());
        b.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = b.start();
        boolean exited = p.waitFor(Timing.scaledMillis(180_000), TimeUnit.MILLISECONDS);
        if (!exited) {
            p.destroyForcibly();
        }
        assertThat(exited && p.exitValue() == 0)
                .as("child Maven: %s", Files.readAllLines(dir.resolve("mvn.log")))
                .isTrue();

        List<String> classpath =
                List.of(Files.readString(dir.resolve("classpath.txt")).trim().split(File.pathSeparator));
        Path glide = classpath.stream()
                .map(Path::of)
                .filter(e -> e.getFileName().toString().startsWith("valkey-glide-2.3.1-"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no valkey-glide jar in " + classpath));
        String classifier = glide.getFileName()
                .toString()
                .substring("valkey-glide-2.3.1-".length())
                .replace(".jar", "");
        assertThat(classifier)
                .as("the classifier os-maven-plugin chose (on musl libc, set linux_musl-* explicitly)")
                .isEqualTo(platformClassifier());
        try (JarFile jar = new JarFile(glide.toFile())) {
            assertThat(jar.stream().map(e -> e.getName()))
                    .as("native library in " + glide)
                    .anyMatch(n -> n.startsWith("natives/") && n.endsWith("/" + System.mapLibraryName("glide_rs")));
        }
    }

    /** GLIDE 2.3.1's classifier for this JVM's platform, from os.name, os.arch and the C library. */
    static String platformClassifier() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String name =
                os.startsWith("mac") ? "osx" : os.startsWith("windows") ? "windows" : musl() ? "linux_musl" : "linux";
        return name + "-" + (arch.equals("aarch64") || arch.equals("arm64") ? "aarch_64" : "x86_64");
    }

    private static boolean musl() {
        try (var files = Files.list(Path.of("/lib"))) {
            return files.anyMatch(f -> f.getFileName().toString().startsWith("ld-musl-"));
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
