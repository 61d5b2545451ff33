package dev.tenure.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.Tenure;
import dev.tenure.batch.TenureBatch;
import dev.tenure.db.TenureSchema;
import dev.tenure.quartz.QuartzCoordination;
import dev.tenure.valkey.ValkeyFunctions;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tenure's library modules as a user's module sees them. An application module that requires {@code dev.tenure.db},
 * {@code dev.tenure.valkey}, {@code dev.tenure.quartz} and {@code dev.tenure.batch} compiles against their API and SPI
 * packages. The same module with one import of {@code dev.tenure.internal} (the helpers the core shares with its store
 * modules) does not compile, and javac names the package and the module that does not export it; on the class path
 * the same source compiles, which is what the descriptors add. The first module then runs on the module path against
 * a real Postgres: the core finds the database backend through the descriptors' {@code uses} and {@code provides}, and
 * Flyway reads the migrations of the named module {@code dev.tenure.db}.
 */
class ModuleWallsIT {

    /** Tenure's library modules and the modules they require, each found where this JVM loaded a class of it. */
    private static final List<Class<?>> MODULES = List.of(
            Tenure.class,
            TenureSchema.class,
            ValkeyFunctions.class,
            QuartzCoordination.class,
            TenureBatch.class,
            org.slf4j.Logger.class,
            com.zaxxer.hikari.HikariDataSource.class,
            org.postgresql.Driver.class,
            org.flywaydb.core.Flyway.class,
            org.flywaydb.database.postgresql.PostgreSQLDatabaseType.class,
            glide.api.GlideClient.class,
            org.quartz.Scheduler.class,
            org.springframework.batch.core.job.Job.class,
            org.springframework.batch.infrastructure.item.ItemWriter.class,
            org.springframework.core.SpringVersion.class,
            org.jspecify.annotations.NullMarked.class,
            org.springframework.jdbc.core.JdbcTemplate.class,
            org.springframework.transaction.support.TransactionTemplate.class);

    private static final String MODULE_INFO = """
            module app {
                requires dev.tenure.db;
                requires dev.tenure.valkey;
                requires dev.tenure.quartz;
                requires dev.tenure.batch;
                requires org.postgresql.jdbc;
            }
            """;

    private static final String MAIN = """
            package app;

            import dev.tenure.RunOutcome;
            import dev.tenure.RunPolicy;
            import dev.tenure.Tenure;
            import dev.tenure.batch.TenureBatch;
            import dev.tenure.memory.InMemoryLeaseStore;
            import dev.tenure.metrics.MetricNames;
            import dev.tenure.quartz.QuartzCoordination;
            import dev.tenure.spi.LeaseStore;
            import dev.tenure.valkey.ValkeyFunctions;
            import org.postgresql.ds.PGSimpleDataSource;
            %s
            public final class Main {
                public static void main(String[] args) {
                    PGSimpleDataSource ds = new PGSimpleDataSource();
                    ds.setUrl(args[0]);
                    ds.setUser(args[1]);
                    if (!args[2].equals("-")) {
                        ds.setPassword(args[2]);
                    }
                    List<Class<?>> api = List.of(QuartzCoordination.class, TenureBatch.class, LeaseStore.class,
                            InMemoryLeaseStore.class, MetricNames.class, ValkeyFunctions.class);
                    System.out.println("API types: " + api.size());
                    try (Tenure tenure = Tenure.builder().dataSource(ds).build()) {
                        for (String attempt : List.of("first", "second")) {
                            RunOutcome<Integer> o = tenure.coordinator().run("module-path", "fire-1", RunPolicy.skipFire(), ctx -> 1);
                            System.out.println(attempt + " run: " + o.status());
                        }
                    }
                    System.out.println("core " + Tenure.class.getModule() + ", store " + ValkeyFunctions.class.getModule());
                }
            }
            """;

    private static ExampleServers servers;

    @BeforeAll
    static void start() {
        servers = ExampleServers.postgres(ModuleWallsIT.class);
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    @Test
    void apiPackages_compileAndRunOnTheModulePath(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        List<Diagnostic<? extends JavaFileObject>> errors = compile(dir, "import java.util.List;\n", out, true);
        assertThat(errors)
                .as("a module that uses only exported packages compiles")
                .isEmpty();

        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--module-path",
                out + File.pathSeparator + join(modulePath()),
                "-cp",
                join(classPathWithoutModules()),
                "-m",
                "app/app.Main"));
        command.addAll(servers.databaseArgs());
        ExampleRuns.Output o = ExampleRuns.runToExit(dir, command);
        List<String> stdout = o.stdout();
        List<String> stderr = o.stderr();
        assertThat(stdout)
                .as("stderr %s", stderr)
                .containsSubsequence(
                        "API types: 6",
                        "first run: EXECUTED",
                        "second run: SKIPPED_ALREADY_DONE",
                        "core module dev.tenure.core, store module dev.tenure.valkey");
    }

    @Test
    void internalPackage_doesNotCompileOnTheModulePath_butDoesOnTheClassPath(@TempDir Path dir) throws Exception {
        String imports = "import java.util.List;\nimport dev.tenure.internal.HostPort;\n";
        List<Diagnostic<? extends JavaFileObject>> errors =
                compile(dir.resolve("modular"), imports, dir.resolve("out1"), true);
        assertThat(errors)
                .as("javac's errors")
                .isNotEmpty()
                .first()
                .extracting(e -> e.getMessage(Locale.ROOT))
                .asString()
                .contains(
                        "package dev.tenure.internal is declared in module dev.tenure.core, which does not export it to module app");
        assertThat(errors).allSatisfy(e -> assertThat(e.getMessage(Locale.ROOT)).contains("dev.tenure.internal"));

        List<Diagnostic<? extends JavaFileObject>> onClassPath =
                compile(dir.resolve("plain"), imports, dir.resolve("out2"), false);
        assertThat(onClassPath)
                .as("the same source without a module-info, on the class path")
                .isEmpty();
    }

    /** Compiles {@code app.Main} (with {@code imports}) as module {@code app}, or as plain classes on the class path. */
    private static List<Diagnostic<? extends JavaFileObject>> compile(
            Path dir, String imports, Path out, boolean modular) throws Exception {
        Path src = dir.resolve("src");
        Files.createDirectories(src.resolve("app"));
        Files.createDirectories(out);
        Files.writeString(src.resolve("app/Main.java"), MAIN.formatted(imports));
        List<Path> sources = new ArrayList<>(List.of(src.resolve("app/Main.java")));
        if (modular) {
            Files.writeString(src.resolve("module-info.java"), MODULE_INFO);
            sources.add(src.resolve("module-info.java"));
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = new ArrayList<>(List.of("-d", out.toString(), "--release", "17"));
        // javac called in-process takes this JVM's class path when given none: the modular compile gets an empty one
        options.addAll(
                modular
                        ? List.of("--module-path", join(modulePath()), "-cp", out.toString())
                        : List.of(
                                "-cp",
                                join(Stream.concat(modulePath().stream(), classPathWithoutModules().stream())
                                        .toList())));
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            javac.getTask(null, files, diagnostics, options, null, files.getJavaFileObjectsFromPaths(sources))
                    .call();
        }
        return diagnostics.getDiagnostics().stream()
                .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                .toList();
    }

    private static List<Path> modulePath() {
        Set<Path> paths = new LinkedHashSet<>();
        for (Class<?> c : MODULES) {
            try {
                paths.add(Path.of(
                        c.getProtectionDomain().getCodeSource().getLocation().toURI()));
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        return List.copyOf(paths);
    }

    /** The rest of this JVM's class path: what the automatic modules need, and SLF4J's provider. */
    private static List<Path> classPathWithoutModules() {
        Set<Path> modules = Set.copyOf(modulePath());
        return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(Path::of)
                .filter(p -> !modules.contains(p))
                .toList();
    }

    private static String join(List<Path> paths) {
        return paths.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }
}
