package dev.tenure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.metrics.MetricNames;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, item 12: the meter lists of the docs name every meter Tenure registers, and nothing else, so they cannot go
 * stale again. Every meter name is a constant of {@link MetricNames} (the main code registers none by a literal of its
 * own: the last test checks), the table of docs/metrics-and-traces.md has exactly those names, and the Spring Boot
 * pages (docs/spring-boot.md, the starter's README) name each of them.
 */
class MeterDocsTest {

    private static final Path ROOT = Path.of(System.getProperty("tenure.examples.root", ".."))
            .toAbsolutePath()
            .normalize();
    /** A meter in a Markdown table's first column: {@code | `tenure.fire.missed` | ...}. */
    private static final Pattern TABLE_ROW = Pattern.compile("^\\|\\s*`(tenure\\.[a-z.]+)`\\s*\\|");
    /** A meter name in a code span, tags and all: {@code `tenure.fire.missed{job,reason}`}. */
    private static final Pattern CODE_SPAN_NAME = Pattern.compile("`(tenure\\.[a-z.]+)[`{]");
    /** A meter registered by a literal name instead of a {@code MetricNames} constant. */
    private static final Pattern LITERAL_METER = Pattern.compile(
            "(counter|gauge|timer|summary|Counter\\.builder|Gauge\\.builder|Timer\\.builder|"
                    + "DistributionSummary\\.builder|FunctionCounter\\.builder|LongTaskTimer\\.builder)\\(\\s*\"tenure\\.");

    /** The value of every public String constant of {@link MetricNames}. */
    static Set<String> meters() throws IllegalAccessException {
        Set<String> names = new TreeSet<>();
        for (Field f : MetricNames.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
                names.add((String) f.get(null));
            }
        }
        return names;
    }

    @Test
    void theMetricsPage_hasOneRowPerMeter_andNoOther() throws Exception {
        List<String> rows = new ArrayList<>();
        for (String line : Files.readAllLines(ROOT.resolve("docs/metrics-and-traces.md"))) {
            Matcher m = TABLE_ROW.matcher(line);
            if (m.find()) {
                rows.add(m.group(1));
            }
        }
        assertThat(rows).as("the meter table of docs/metrics-and-traces.md").doesNotHaveDuplicates();
        assertThat(new TreeSet<>(rows))
                .as("the meter table of docs/metrics-and-traces.md against MetricNames")
                .isEqualTo(meters());
    }

    @Test
    void theSpringBootPages_nameEveryMeter() throws Exception {
        for (String page : List.of("docs/spring-boot.md", "tenure-spring-boot-starter/README.md")) {
            Set<String> named = new TreeSet<>();
            Matcher m = CODE_SPAN_NAME.matcher(Files.readString(ROOT.resolve(page)));
            while (m.find()) {
                named.add(m.group(1));
            }
            assertThat(named).as("meters named in %s", page).containsAll(meters());
        }
    }

    @Test
    void theMainCode_registersNoMeterByALiteralName() throws Exception {
        List<String> literals = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")
                            && p.toString().contains("/src/main/java/")
                            && !p.toString().contains("/target/"))
                    .toList()) {
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    if (LITERAL_METER.matcher(lines.get(i)).find()) {
                        literals.add(ROOT.relativize(f) + ":" + (i + 1) + ": "
                                + lines.get(i).trim());
                    }
                }
            }
        }
        assertThat(literals)
                .as("meters registered by a literal name: add a constant to MetricNames and a row to "
                        + "docs/metrics-and-traces.md")
                .isEmpty();
        assertThat(meters()).as("the names this test compares").hasSizeGreaterThan(10);
    }
}
