package dev.tenure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * Every README snippet compiles: each {@code ```java}, {@code ```xml} or {@code ```properties} block of a Markdown
 * file of the project (every {@code README*.md}, every page under {@code docs/}, any other {@code .md}) is preceded by {@code <!-- snippet: examples/src/...#name -->} (or
 * {@code examples-spring-boot/src/...}, or the Boot example's {@code examples-spring-boot/pom.xml}) and equals the region
 * {@code tag::name[]} ... {@code end::name[]} of that file (marker lines left out, indentation made common), a file
 * that the build compiles and a test runs. The only blocks without a marker are Tenure's own dependency snippets,
 * whose coordinates are checked against the modules of this build instead.
 */
class ReadmeSnippetsTest {

    private static final Path ROOT = Path.of(System.getProperty("tenure.examples.root", ".."))
            .toAbsolutePath()
            .normalize();
    private static final Pattern MARKER =
            Pattern.compile("<!-- snippet: (examples(?:-spring-boot)?/(?:src/\\S+|pom\\.xml))#([\\w-]+) -->");
    private static final Pattern FENCE = Pattern.compile("```(\\w*)");

    /** A fenced code block of a Markdown file: where it is, its language, its text and its marker (or null). */
    record Block(Path file, int line, String language, String text, Matcher marker) {
        @Override
        public String toString() {
            return ROOT.relativize(file) + ":" + line;
        }
    }

    @TestFactory
    Stream<DynamicTest> everyJavaAndXmlBlock_equalsTheRegionItNames() throws IOException {
        return blocks().stream()
                .filter(b -> b.marker() != null)
                .map(b -> DynamicTest.dynamicTest(
                        b + " = " + b.marker().group(1) + "#" + b.marker().group(2),
                        () -> assertThat(b.text())
                                .as("%s; the region says:%n%s", b, region(b.marker()))
                                .isEqualTo(region(b.marker()))));
    }

    @Test
    void blocksWithoutAMarker_areOnlyTenureDependencies_ofModulesOfThisBuild() throws Exception {
        String version = projectElement(ROOT.resolve("pom.xml"), "version");
        Set<String> artifacts = new java.util.TreeSet<>();
        for (Path pom : Files.newDirectoryStream(ROOT, p -> Files.exists(p.resolve("pom.xml")))) {
            artifacts.add(projectElement(pom.resolve("pom.xml"), "artifactId"));
        }
        List<Block> unmarked = blocks().stream().filter(b -> b.marker() == null).toList();
        assertThat(unmarked).as("blocks without a snippet marker").isNotEmpty();
        for (Block b : unmarked) {
            assertThat(b.language())
                    .as("%s: a %s block needs a snippet marker", b, b.language())
                    .isEqualTo("xml");
            NodeList deps = xml("<r>" + b.text() + "</r>").getElementsByTagName("dependency");
            assertThat(deps.getLength())
                    .as("%s: an xml block without a marker holds one Tenure dependency", b)
                    .isEqualTo(1);
            Element d = (Element) deps.item(0);
            assertThat(text(d, "groupId")).as("%s: groupId", b).isEqualTo("dev.tenure");
            assertThat(text(d, "artifactId")).as("%s: artifactId", b).isIn(artifacts);
            assertThat(text(d, "version")).as("%s: version", b).isEqualTo(version);
        }
    }

    @Test
    void theMainReadme_takesItsSnippetsFromTheExamples() throws IOException {
        assertThat(blocks().stream().filter(b -> b.file().equals(ROOT.resolve("README.md")) && b.marker() != null))
                .hasSizeGreaterThanOrEqualTo(5);
    }

    @Test
    void everyMarkdownFile_isScanned_docsSubfoldersIncluded() throws IOException {
        List<Path> files = markdownFiles();
        assertThat(files).contains(ROOT.resolve("README.md"), ROOT.resolve("benchmarks/README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            assertThat(files)
                    .containsAll(docs.filter(p -> p.toString().endsWith(".md")).toList());
        }
    }

    private static List<Block> blocks() throws IOException {
        List<Block> blocks = new ArrayList<>();
        for (Path md : markdownFiles()) {
            List<String> lines = Files.readAllLines(md);
            for (int i = 0; i < lines.size(); i++) {
                Matcher fence = FENCE.matcher(lines.get(i));
                if (!fence.matches()) {
                    continue;
                }
                int end = i + 1;
                while (!lines.get(end).equals("```")) {
                    end++;
                }
                String language = fence.group(1);
                if (language.equals("java") || language.equals("xml") || language.equals("properties")) {
                    Matcher marker = i > 0 ? MARKER.matcher(lines.get(i - 1)) : null;
                    String text = String.join("\n", lines.subList(i + 1, end));
                    blocks.add(
                            new Block(md, i + 1, language, text, marker != null && marker.matches() ? marker : null));
                }
                i = end;
            }
        }
        return blocks;
    }

    private static List<Path> markdownFiles() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> Stream.of(ROOT.relativize(p).toString().split("/"))
                            .noneMatch(part ->
                                    part.equals("target") || part.startsWith(".") || part.equals("node_modules")))
                    .sorted()
                    .toList();
        }
    }

    /** The lines between {@code tag::name[]} and {@code end::name[]}, without marker lines, with common indentation removed. */
    static String region(Matcher marker) throws IOException {
        Path file = ROOT.resolve(marker.group(1));
        String name = marker.group(2);
        List<String> lines = Files.readAllLines(file);
        int start = indexOf(lines, "tag::" + name + "[]", 0, file);
        int end = indexOf(lines, "end::" + name + "[]", start, file);
        List<String> body = lines.subList(start + 1, end).stream()
                .filter(l -> !l.contains("tag::") && !l.contains("end::"))
                .toList();
        int indent = body.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        return body.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).collect(Collectors.joining("\n"));
    }

    private static int indexOf(List<String> lines, String marker, int from, Path file) {
        for (int i = from; i < lines.size(); i++) {
            if (lines.get(i).contains(marker)) {
                return i;
            }
        }
        throw new AssertionError("no '" + marker + "' in " + file);
    }

    private static String projectElement(Path pom, String name) throws Exception {
        NodeList children = xml(Files.readString(pom)).getDocumentElement().getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            if (children.item(i) instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().trim();
            }
        }
        throw new AssertionError("no <" + name + "> in " + pom);
    }

    private static org.w3c.dom.Document xml(String text) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new InputSource(new StringReader(text)));
    }

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent().trim();
    }
}
