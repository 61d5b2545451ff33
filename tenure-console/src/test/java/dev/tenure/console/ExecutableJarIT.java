package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The executable jar ({@code target/tenure-console.jar}, built by the shade plugin) runs standalone: a CLI command and {@code serve}. */
class ExecutableJarIT {

    private static PostgresDatabase db;

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(ExecutableJarIT.class);
        try (var pool = TenureDataSources.hikari(db.jdbcUrl(), db.username(), db.password());
                Tenure tenure = Tenure.builder().dataSource(pool).build()) {
            tenure.coordinator().run("nightly", "2026-12-02", RunPolicy.skipFire(), ctx -> 1);
        }
    }

    @AfterAll
    static void stop() {
        db.close();
    }

    @Test
    void javaDashJar_runsTheCli_andServesThePage() throws Exception {
        Process status = jar("status", "--jdbc-url", db.jdbcUrl(), "--user", db.username());
        assertThat(status.waitFor(Timing.scaledMillis(60_000), TimeUnit.MILLISECONDS))
                .isTrue();
        String out = new String(status.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(status.exitValue()).as(out).isZero();
        assertThat(out).containsPattern("nightly +job +- +\\d+ +- +COMPLETED +2026-12-02 +1");

        Process serve = jar("serve", "--port", "0", "--jdbc-url", db.jdbcUrl(), "--user", db.username());
        try {
            BufferedReader lines =
                    new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
            String line = lines.readLine();
            Matcher url = Pattern.compile(
                            "Tenure console on (http://127\\.0\\.0\\.1:\\d+)/ \\(read-only\\); stop with Ctrl-C")
                    .matcher(String.valueOf(line));
            assertThat(url.matches()).as("first line: %s", line).isTrue();
            assertThat(Http.get(url.group(1) + "/").body()).contains(">nightly</a>");
        } finally {
            serve.destroy();
            assertThat(serve.waitFor(Timing.scaledMillis(30_000), TimeUnit.MILLISECONDS))
                    .as("stops on SIGTERM")
                    .isTrue();
        }
    }

    private static Process jar(String... args) throws Exception {
        Path jar = Path.of(System.getProperty("tenure.console.jar", "target/tenure-console.jar"));
        assertThat(Files.isRegularFile(jar))
                .as("%s, built by 'mvn package' (the shade plugin)", jar)
                .isTrue();
        List<String> cmd = new ArrayList<>(
                List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        if (db.password() != null) {
            pb.environment().put("PGPASSWORD", db.password());
        }
        return pb.start();
    }
}
