package dev.tenure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link of every Markdown file of the project resolves: the file or folder it names exists, and its
 * {@code #anchor}, if any, is a heading of the Markdown file it points to (GitHub's anchors: lower case, punctuation
 * dropped, spaces as hyphens, {@code -1}, {@code -2} for repeated headings). Links inside code blocks and code spans
 * are not links. Web links ({@code http:}, {@code https:}, {@code mailto:}) are not checked.
 */
class MarkdownLinksTest {

    private static final Path ROOT = Path.of(System.getProperty("tenure.examples.root", ".."))
            .toAbsolutePath()
            .normalize();
    /** {@code [text](target)} and {@code ![alt](target)}; the target ends at a space (a title) or the parenthesis. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    private static final Pattern HEADING = Pattern.compile("#{1,6}\\s+(.*?)\\s*#*\\s*");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(?:(?!\\1).)+?\\1");

    /** A relative link: the file it is in, its line, and its target as written. */
    record Link(Path file, int line, String target) {
        @Override
        public String toString() {
            return ROOT.relativize(file) + ":" + line + " -> " + target;
        }
    }

    @TestFactory
    Stream<DynamicTest> everyRelativeLink_resolves() throws IOException {
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<Link> links = new ArrayList<>();
        for (Path md : markdownFiles(ROOT)) {
            links.addAll(links(md));
        }
        return links.stream()
                .map(l -> DynamicTest.dynamicTest(
                        l.toString(),
                        () -> assertThat(problem(l, anchors)).as("%s", l).isNull()));
    }

    @Test
    void theFrontDoorAndTheDocsPages_areAmongTheCheckedFiles() throws IOException {
        List<Path> files = markdownFiles(ROOT);
        assertThat(files).contains(ROOT.resolve("README.md"), ROOT.resolve("benchmarks/README.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            assertThat(files)
                    .containsAll(docs.filter(p -> p.toString().endsWith(".md")).toList());
        }
    }

    @Test
    void aBrokenFile_aBrokenAnchor_andAnAnchorInCode_areFound(@TempDir Path dir) throws IOException {
        Files.writeString(
                dir.resolve("a.md"),
                String.join(
                        "\n",
                        "# Title",
                        "## Failure modes: `kill -9`, SIGSTOP (2026-12-03 09:39–10:08 UTC)",
                        "## Failure modes: `kill -9`, SIGSTOP (2026-12-03 09:39–10:08 UTC)",
                        "[ok](#failure-modes-kill--9-sigstop-2026-12-03-09391008-utc) [ok](#failure-modes-kill--9-sigstop-2026-12-03-09391008-utc-1)",
                        "[ok](b.md#bs-heading) ![ok](b.md) [web](https://example.com/#nowhere)",
                        "[bad](#nowhere) [bad](c.md) [bad](b.md#nowhere)",
                        "`[not a link](#nowhere)`",
                        "```",
                        "[not a link](#nowhere)",
                        "```"));
        Files.writeString(dir.resolve("b.md"), "## B's heading\n");
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = links(dir.resolve("a.md")).stream()
                .filter(l -> problem(l, anchors) != null)
                .map(Link::target)
                .toList();
        assertThat(broken).containsExactly("#nowhere", "c.md", "b.md#nowhere");
    }

    /** Null when the link resolves, else what is wrong with it. */
    private static String problem(Link link, Map<Path, Set<String>> anchors) {
        String target = link.target();
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        Path file = path.isEmpty()
                ? link.file()
                : link.file().getParent().resolve(path).normalize();
        if (!Files.exists(file)) {
            return "no file " + file;
        }
        if (hash < 0 || !file.toString().endsWith(".md")) {
            return null;
        }
        String anchor = target.substring(hash + 1);
        Set<String> known = anchors.computeIfAbsent(file, MarkdownLinksTest::anchorsOf);
        return known.contains(anchor) ? null : "no anchor #" + anchor + " in " + file + "; it has " + known;
    }

    private static List<Link> links(Path md) throws IOException {
        List<Link> links = new ArrayList<>();
        boolean inFence = false;
        List<String> lines = Files.readAllLines(md);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.stripLeading().startsWith("```")) {
                inFence = !inFence;
                continue;
            }
            if (inFence || line.startsWith("    ")) {
                continue;
            }
            Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
            while (m.find()) {
                String target = m.group(1);
                if (!target.matches("(?i)(https?|mailto|ftp):.*")) {
                    links.add(new Link(md, i + 1, target));
                }
            }
        }
        return links;
    }

    /** GitHub's anchors of a Markdown file's headings, and its explicit {@code <a name>} anchors. */
    static Set<String> anchorsOf(Path md) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inFence = false;
        try {
            for (String line : Files.readAllLines(md)) {
                if (line.stripLeading().startsWith("```")) {
                    inFence = !inFence;
                    continue;
                }
                if (inFence) {
                    continue;
                }
                Matcher html = HTML_ANCHOR.matcher(line);
                while (html.find()) {
                    anchors.add(html.group(1));
                }
                Matcher heading = HEADING.matcher(line);
                if (heading.matches()) {
                    String slug = slug(heading.group(1));
                    int n = seen.merge(slug, 1, Integer::sum) - 1;
                    anchors.add(n == 0 ? slug : slug + "-" + n);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return anchors;
    }

    /** GitHub's slug: lower case, everything but letters, digits, marks, '_', '-' and spaces dropped, spaces as '-'. */
    static String slug(String heading) {
        String text = heading.replaceAll("<[^>]+>", "").replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
        return text.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "")
                .replace(' ', '-');
    }

    private static List<Path> markdownFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> Stream.of(root.relativize(p).toString().split("/"))
                            .noneMatch(part ->
                                    part.equals("target") || part.startsWith(".") || part.equals("node_modules")))
                    .sorted()
                    .toList();
        }
    }
}
