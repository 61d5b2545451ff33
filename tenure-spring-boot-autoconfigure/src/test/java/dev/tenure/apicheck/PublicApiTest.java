package dev.tenure.apicheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tenure.Tenure;
import dev.tenure.batch.TenureBatch;
import dev.tenure.boot.Coordinated;
import dev.tenure.console.TenureConsole;
import dev.tenure.db.TenureSchema;
import dev.tenure.quartz.QuartzCoordination;
import dev.tenure.valkey.ValkeyFunctions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Issue 35, item 12: no public API change without a note. Each library module's public API (its exported packages'
 * public types and members, {@link ApiListing}) must equal its checked-in listing {@code api/<module>.txt}, and every
 * change must be named in CHANGELOG.md's {@code [Unreleased]} section: a changed or removed member as
 * {@code Type.member}, an added one by its type. A member removed without a release as
 * {@code @Deprecated(forRemoval = true)} is called a break in the failure. The failure says what changed and how to
 * accept it; {@code -Dtenure.api.update=true} rewrites the listings, and refuses while the changelog does not name a
 * change.
 *
 * <p>Why not japicmp or revapi: both compare against a released artifact, and Tenure has none yet (no tag, nothing
 * published to a repository this build can reach), so a baseline would have to be built from an older commit on every
 * run. A listing in the repository is that baseline, reviewed in every diff that changes the API, and this check costs
 * a second. When 0.1.0 is published, japicmp against it can join this check.
 *
 * <p>Why here: this module's test class path is the one that holds every library module and what their signatures
 * name (Spring Boot, Quartz, Spring Batch, Micrometer, the servlet API), which reflection needs. The test kit is left
 * out: it changes with Tenure's own tests and promises no stable API yet.
 */
class PublicApiTest {

    /** Each library module, by artifact id, and a class of it: where its classes are. */
    static final Map<String, Class<?>> MODULES = new LinkedHashMap<>();

    static {
        MODULES.put("coordinator-core", Tenure.class);
        MODULES.put("tenure-db", TenureSchema.class);
        MODULES.put("tenure-valkey", ValkeyFunctions.class);
        MODULES.put("tenure-quartz", QuartzCoordination.class);
        MODULES.put("tenure-batch", TenureBatch.class);
        MODULES.put("tenure-spring-boot-autoconfigure", Coordinated.class);
        MODULES.put("tenure-console", TenureConsole.class);
    }

    static final String UPDATE_PROPERTY = "tenure.api.update";
    private static final Path ROOT = root();
    private static final Pattern VERSION_HEADING =
            Pattern.compile("## \\[(\\d+\\.\\d+\\.\\d+)] - \\d{4}-\\d{2}-\\d{2}");
    private static final Set<String> CHANGE_KINDS =
            Set.of("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security");

    @TestFactory
    Stream<DynamicTest> eachLibraryModule_hasTheApiOfItsListing_andEveryChangeIsInTheChangelog() {
        return MODULES.entrySet().stream()
                .map(e -> DynamicTest.dynamicTest(e.getKey(), () -> {
                    String module = e.getKey();
                    ApiListing current = ApiListing.of(e.getValue());
                    Path generated = Path.of(System.getProperty("user.dir"), "target", "api", module + ".txt");
                    Files.createDirectories(generated.getParent());
                    Files.writeString(generated, current.write(comment(module)));
                    Path listed = ROOT.resolve("api").resolve(module + ".txt");
                    boolean update = Boolean.getBoolean(UPDATE_PROPERTY);
                    if (!Files.exists(listed)) {
                        if (update) {
                            Files.createDirectories(listed.getParent());
                            Files.writeString(listed, current.write(comment(module)));
                            return;
                        }
                        fail("no listing " + ROOT.relativize(listed) + " of " + module
                                + "'s public API: create it with " + updateCommand() + " (or copy " + generated + ")");
                    }
                    Report report = report(module, ApiListing.read(Files.readString(listed)), current, changelog());
                    if (report == null) {
                        return;
                    }
                    if (update && report.unnamed().isEmpty()) {
                        Files.writeString(listed, current.write(comment(module)));
                        return;
                    }
                    fail(report.text());
                }));
    }

    @Test
    void everyDeprecationForRemoval_isAnnouncedInTheChangelog() throws IOException {
        String changelog = changelog();
        List<String> unannounced = new ArrayList<>();
        for (Class<?> c : MODULES.values()) {
            ApiListing api = ApiListing.of(c);
            api.types().forEach((type, members) -> {
                if (type.contains(ApiListing.DEPRECATED_FOR_REMOVAL)
                        && !changelog.contains(ApiListing.typeName(type))) {
                    unannounced.add(type);
                }
                for (String m : members) {
                    String named = ApiListing.typeName(type) + "." + memberName(m);
                    if (m.contains(ApiListing.DEPRECATED_FOR_REMOVAL) && !changelog.contains(named)) {
                        unannounced.add(named);
                    }
                }
            });
        }
        assertThat(unannounced)
                .as("deprecated for removal but not named in CHANGELOG.md (say under ### Deprecated what replaces it)")
                .isEmpty();
    }

    @Test
    void theChangelog_isAKeepAChangelogFile_withAnUnreleasedSection() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("CHANGELOG.md"));
        assertThat(lines.get(0)).isEqualTo("# Changelog");
        List<String> releases = lines.stream().filter(l -> l.startsWith("## ")).toList();
        assertThat(releases).as("release headings").isNotEmpty();
        assertThat(releases.get(0)).isEqualTo("## [Unreleased]");
        for (String r : releases.subList(1, releases.size())) {
            assertThat(r).as("a release heading").matches(VERSION_HEADING);
        }
        assertThat(lines.stream()
                        .filter(l -> l.startsWith("### "))
                        .map(l -> l.substring(4).trim())
                        .toList())
                .as("kinds of change (keepachangelog.com 1.1.0)")
                .isNotEmpty()
                .allSatisfy(k -> assertThat(CHANGE_KINDS).contains(k));
    }

    /** The checker itself, on a listing where the history of CoordinatedRun repeats. */
    @Test
    void aRemovedType_thatWasNotDeprecated_isABreak_andUnannounced() {
        ApiListing before = ApiListing.read("""
                public final class dev.tenure.boot.CoordinatedRun
                    public static dev.tenure.JobContext current()
                    public static java.util.Optional<dev.tenure.JobContext> find()
                public abstract interface dev.tenure.JobContext
                    public abstract long epoch()
                """);
        ApiListing after = ApiListing.read("""
                public abstract interface dev.tenure.JobContext
                    public abstract long epoch()
                    public static dev.tenure.JobContext current()
                """);
        String problem = report("m", before, after, "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- nothing\n")
                .text();
        assertThat(problem)
                .contains("- public final class dev.tenure.boot.CoordinatedRun   BREAK: removed without a release as "
                        + "@Deprecated(forRemoval = true)")
                .contains("+ dev.tenure.JobContext :: public static dev.tenure.JobContext current()")
                .contains("does not name: CoordinatedRun, JobContext")
                .contains("-Dtenure.api.update=true");
        assertThat(report(
                                "m",
                                before,
                                after,
                                "## [Unreleased]\n### Removed\n- `CoordinatedRun`: use `JobContext.current()`\n")
                        .unnamed())
                .as("announced: the listing may be rewritten")
                .isEmpty();
        assertThat(report("m", after, after, "")).isNull();
    }

    @Test
    void aRemovalAfterADeprecationForRemoval_isNoBreak() {
        ApiListing before = ApiListing.read("""
                public final class dev.tenure.boot.CoordinatedRun @Deprecated(since="0.1.0", forRemoval=true)
                    public static dev.tenure.JobContext current() @Deprecated(since="0.1.0", forRemoval=true)
                """);
        String problem = report("m", before, ApiListing.read(""), "## [Unreleased]\n### Removed\n- CoordinatedRun\n")
                .text();
        assertThat(problem).contains("deprecated for removal before").doesNotContain("BREAK");
    }

    /** What changed, as the failure says it, and the names CHANGELOG.md's [Unreleased] section lacks. */
    record Report(String text, SortedSet<String> unnamed) {}

    /**
     * Null when {@code current} is {@code listed}; otherwise what changed, what counts as a break, what the changelog
     * does not name yet, and how to accept the change.
     */
    static Report report(String module, ApiListing listed, ApiListing current, String changelog) {
        ApiListing.Diff diff = current.since(listed);
        if (diff.isEmpty()) {
            return null;
        }
        String unreleased = unreleased(changelog);
        SortedSet<String> unnamed = new TreeSet<>();
        StringBuilder b = new StringBuilder("The public API of " + module + " differs from api/" + module + ".txt.\n");
        b.append("Removed or changed (").append(diff.removed().size()).append("):\n");
        for (String line : diff.removed()) {
            b.append("  - ")
                    .append(line)
                    .append("   ")
                    .append(verdict(line, diff.added()))
                    .append('\n');
            String name =
                    line.contains(" :: ") && current.types().keySet().stream().anyMatch(t -> sameType(t, line))
                            ? ApiListing.typeName(line) + "." + memberName(line.substring(line.indexOf(" :: ") + 4))
                            : ApiListing.typeName(line);
            if (!unreleased.contains(name)) {
                unnamed.add(name);
            }
        }
        b.append("Added (").append(diff.added().size()).append("):\n");
        for (String line : diff.added()) {
            b.append("  + ").append(line).append('\n');
            if (!unreleased.contains(ApiListing.typeName(line))) {
                unnamed.add(ApiListing.typeName(line));
            }
        }
        if (!unnamed.isEmpty()) {
            b.append("CHANGELOG.md's [Unreleased] section does not name: ")
                    .append(String.join(", ", unnamed))
                    .append('\n');
        }
        b.append("To accept it: keep what you remove for one release, @Deprecated(since = \"<next version>\", "
                        + "forRemoval = true) and delegating to what replaces it; add an entry to CHANGELOG.md's "
                        + "[Unreleased] section (### Added, Changed, Deprecated or Removed) naming each changed type "
                        + "(Type.member for a changed or removed member) with how to migrate; then rewrite the listing "
                        + "with ")
                .append(updateCommand())
                .append(" (it refuses while the changelog does not name a change).");
        return new Report(b.toString(), unnamed);
    }

    /** What a removed line means: gone after a deprecation, gone without one, deprecated now, or changed. */
    private static String verdict(String removed, Set<String> added) {
        String successor = added.stream()
                .filter(a -> key(a).equals(key(removed)))
                .findFirst()
                .orElse(null);
        if (successor != null) {
            return successor.endsWith(ApiListing.DEPRECATED_FOR_REMOVAL + ")")
                            && !removed.endsWith(ApiListing.DEPRECATED_FOR_REMOVAL + ")")
                    ? "(now deprecated for removal: name it under ### Deprecated with what replaces it)"
                    : "CHANGED: a break for callers of the old form unless it is compatible; say how to migrate";
        }
        return removed.endsWith(ApiListing.DEPRECATED_FOR_REMOVAL + ")")
                ? "(deprecated for removal before: name it under ### Removed)"
                : "BREAK: removed without a release as @Deprecated(forRemoval = true)";
    }

    /** A type's name, or its name and a member's. */
    private static String key(String line) {
        return line.contains(" :: ")
                ? ApiListing.binaryName(line) + " :: " + memberName(line.substring(line.indexOf(" :: ") + 4))
                : ApiListing.binaryName(line);
    }

    private static boolean sameType(String header, String line) {
        return ApiListing.typeName(header).equals(ApiListing.typeName(line));
    }

    /** {@code current} of {@code public static dev.tenure.JobContext current()}; {@code <init>} of a constructor. */
    static String memberName(String member) {
        String m = member.replaceAll(" @Deprecated\\(.*\\)$", "").replaceAll(" = .*$", "");
        int paren = m.indexOf('(');
        String head = paren < 0 ? m : m.substring(0, paren);
        return head.substring(head.lastIndexOf(' ') + 1);
    }

    /** The {@code [Unreleased]} section of a changelog: from its heading to the next release's. */
    static String unreleased(String changelog) {
        Matcher m = Pattern.compile("(?ms)^## \\[Unreleased].*?(?=^## |\\z)").matcher(changelog);
        return m.find() ? m.group() : "";
    }

    private static String changelog() throws IOException {
        Path file = ROOT.resolve("CHANGELOG.md");
        return Files.exists(file) ? Files.readString(file) : "";
    }

    private static String comment(String module) {
        return "The public API of " + module + ", checked by PublicApiTest (tenure-spring-boot-autoconfigure).\n"
                + "Change it only with an entry in CHANGELOG.md; rewrite it with " + updateCommand();
    }

    private static String updateCommand() {
        return "mvn -B -o -q -pl tenure-spring-boot-autoconfigure -am verify -Dtest=PublicApiTest -DskipITs "
                + "-Dsurefire.failIfNoSpecifiedTests=false -D" + UPDATE_PROPERTY + "=true";
    }

    /** The reactor's root: the nearest directory up from this module with coordinator-core in it. */
    private static Path root() {
        for (Path p = Path.of(System.getProperty("user.dir")).toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("coordinator-core")) && Files.exists(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new IllegalStateException("no reactor root above " + System.getProperty("user.dir"));
    }
}
