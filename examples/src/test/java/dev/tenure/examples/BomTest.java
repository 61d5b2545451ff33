package dev.tenure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The BOM (tenure-bom) names every library module of the reactor, at the reactor's version, and nothing else: a module
 * added without a line there, or a version bumped in one place only, fails here. The Boot example imports it and
 * declares its Tenure dependencies without versions, as users do.
 */
class BomTest {

    private static final Path ROOT = Path.of(System.getProperty("tenure.examples.root", ".."))
            .toAbsolutePath()
            .normalize();

    /** Modules that are not libraries users depend on: tests, benchmarks, examples, and the BOM itself. */
    private static final Set<String> NOT_LIBRARIES = Set.of(
            "tenure-bom", "coordinator-it", "tenure-benchmarks", "tenure-examples", "tenure-examples-spring-boot");

    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern MANAGED = Pattern.compile(
            "<groupId>dev\\.tenure</groupId><artifactId>([^<]+)</artifactId><version>([^<]+)</version>");

    @Test
    void theBom_namesEveryLibraryModule_atTheReactorsVersion() throws Exception {
        String root = Files.readString(ROOT.resolve("pom.xml"));
        String version =
                first(Pattern.compile("<artifactId>tenure-parent</artifactId>\\s*<version>([^<]+)</version>"), root);
        Set<String> libraries = new TreeSet<>();
        Matcher m = MODULE.matcher(root);
        while (m.find()) {
            String pom = Files.readString(ROOT.resolve(m.group(1)).resolve("pom.xml"));
            // the module's own artifactId: the first one after its parent element
            String own = pom.contains("</parent>") ? pom.substring(pom.indexOf("</parent>")) : pom;
            String artifactId = first(Pattern.compile("<artifactId>([^<]+)</artifactId>"), own);
            if (!NOT_LIBRARIES.contains(artifactId)) {
                libraries.add(artifactId);
            }
        }
        String bom = Files.readString(ROOT.resolve("tenure-bom/pom.xml"));
        assertThat(first(Pattern.compile("<artifactId>tenure-bom</artifactId>\\s*<version>([^<]+)</version>"), bom))
                .as("the BOM's own version")
                .isEqualTo(version);
        Set<String> managed = new TreeSet<>();
        Matcher d = MANAGED.matcher(bom);
        while (d.find()) {
            assertThat(d.group(2)).as("version of %s in the BOM", d.group(1)).isEqualTo(version);
            managed.add(d.group(1));
        }
        assertThat(managed).as("the BOM's modules").isEqualTo(libraries);
        assertThat(libraries).contains("coordinator-core", "tenure-db", "tenure-spring-boot-starter");

        String example = Files.readString(ROOT.resolve("examples-spring-boot/pom.xml"));
        assertThat(example)
                .as("the Boot example imports the BOM")
                .containsPattern("<artifactId>tenure-bom</artifactId>\\s*<version>[^<]+</version>\\s*<type>pom</type>"
                        + "\\s*<scope>import</scope>");
        assertThat(example.substring(example.indexOf("</dependencyManagement>")))
                .as("the Boot example's Tenure dependencies, without versions")
                .doesNotContainPattern("<groupId>dev\\.tenure</groupId>\\s*<artifactId>(?!tenure-bom)[^<]+</artifactId>"
                        + "\\s*<version>");
    }

    private static String first(Pattern p, String text) {
        Matcher m = p.matcher(text);
        assertThat(m.find()).as("%s in the POM", p).isTrue();
        return m.group(1);
    }
}
