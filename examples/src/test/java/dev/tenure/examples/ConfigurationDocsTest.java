package dev.tenure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.DatabaseConfig;
import dev.tenure.LeaseOptions;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md says "every knob": every public setter of {@code Tenure.Builder}, {@code DatabaseConfig.Builder}
 * and {@code ValkeyConfig.Builder}, and every component of {@code LeaseOptions}, is named there in backticks (issue
 * 36, item 7). A knob added without a line in the table fails here.
 */
class ConfigurationDocsTest {

    private static final Path DOC = Path.of(System.getProperty("tenure.examples.root", ".."))
            .resolve("docs/configuration.md")
            .toAbsolutePath()
            .normalize();

    @Test
    void everyKnobOfTheBuilders_isNamedInTheConfigurationPage() throws Exception {
        String doc = Files.readString(DOC);
        Set<String> missing = new TreeSet<>();
        for (Class<?> builder :
                List.of(Tenure.Builder.class, DatabaseConfig.Builder.class, ValkeyConfig.Builder.class)) {
            for (String knob : knobs(builder)) {
                if (!doc.contains("`" + knob + "(") && !doc.contains("`" + knob + "`")) {
                    missing.add(
                            builder.getSimpleName().equals("Builder")
                                    ? builder.getEnclosingClass().getSimpleName() + ".Builder." + knob
                                    : knob);
                }
            }
        }
        for (var c : LeaseOptions.class.getRecordComponents()) {
            if (!doc.contains("`" + c.getName() + "`") && !doc.contains("`" + c.getName() + "(")) {
                missing.add("LeaseOptions." + c.getName());
            }
        }
        assertThat(missing).as("knobs that %s does not name", DOC).isEmpty();
        assertThat(knobs(Tenure.Builder.class))
                .as("the check reads the builder")
                .contains("dataSource", "nodeName");
    }

    /** The builder's public instance methods that return the builder: its knobs. */
    private static Set<String> knobs(Class<?> builder) {
        Set<String> out = new TreeSet<>();
        Arrays.stream(builder.getMethods())
                .filter(m -> m.getDeclaringClass() == builder)
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> m.getReturnType() == builder)
                .map(Method::getName)
                .forEach(out::add);
        return out;
    }
}
