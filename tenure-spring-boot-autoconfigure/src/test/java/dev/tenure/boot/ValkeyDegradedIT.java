package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.PostgresDatabases;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 21, acceptance 4: a Boot application whose Valkey password is wrong (a real valkey-server with requirepass)
 * says so at start-up in a WARN, and its health says it in one line; with {@code tenure.valkey.required=true} it does
 * not start, and the failure names the property.
 */
@ExtendWith(OutputCaptureExtension.class)
class ValkeyDegradedIT {

    private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

    static PostgresDatabase db;
    static ValkeyServer valkey;
    final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() {
        db = PostgresDatabases.forClass(ValkeyDegradedIT.class);
        valkey = ValkeyServers.standalone("--requirepass", "the-right-one");
    }

    @AfterAll
    static void stop() {
        valkey.close();
        db.close();
    }

    /** A web application with the actuator, on the test's database and the password-protected Valkey. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {}

    private static ConfigurableApplicationContext app(String... more) {
        List<String> p = new ArrayList<>(List.of(
                "spring.datasource.url=" + db.jdbcUrl(),
                "tenure.valkey.addresses=" + valkey.address(),
                "tenure.valkey.password=a-wrong-one",
                "tenure.valkey.connection-timeout=" + CONNECTION_TIMEOUT.toMillis() + "ms",
                "management.endpoints.web.exposure.include=health",
                "management.endpoint.health.show-details=always",
                "spring.autoconfigure.exclude=org.springframework.boot.quartz.autoconfigure.QuartzAutoConfiguration,"
                        + "org.springframework.boot.batch.autoconfigure.BatchAutoConfiguration,"
                        + "org.springframework.boot.batch.jdbc.autoconfigure.BatchJdbcAutoConfiguration",
                "spring.main.banner-mode=off",
                "server.port=0",
                "logging.level.root=warn"));
        if (db.username() != null) {
            p.add("spring.datasource.username=" + db.username());
        }
        if (db.password() != null) {
            p.add("spring.datasource.password=" + db.password());
        }
        p.addAll(List.of(more));
        return new SpringApplicationBuilder(App.class)
                .properties(p.toArray(String[]::new))
                .run();
    }

    private static TenureConfigurationException configurationFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof TenureConfigurationException e) {
                return e;
            }
        }
        return null;
    }

    private static long warnings(CapturedOutput output) {
        return output.getAll()
                .lines()
                .filter(l -> l.contains("WARN") && l.contains("WRONGPASS"))
                .count();
    }

    @Test
    void wrongPassword_aWarnAtStartUp_healthSaysItInOneLine_andTheWarnIsNotRepeatedWithinAMinute(CapturedOutput output)
            throws Exception {
        try (ConfigurableApplicationContext app = app()) {
            String expected = "Valkey " + valkey.address() + ": WRONGPASS";
            assertThat(output.getAll().lines().filter(l -> l.contains("WARN") && l.contains(expected)))
                    .as("WARN lines naming the server and its answer, logged while the application started")
                    .hasSize(1);
            for (int i = 0; i < 2; i++) {
                HttpResponse<String> r = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                                        + ((WebServerApplicationContext) app)
                                                .getWebServer()
                                                .getPort() + "/actuator/health"))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                JsonNode tenure = JsonMapper.builder()
                        .build()
                        .readTree(r.body())
                        .path("components")
                        .path("tenure");
                String said = tenure.path("details").path("valkey").asString();
                System.out.println("health with a wrong Valkey password: HTTP " + r.statusCode() + " " + tenure);
                assertThat(said)
                        .startsWith(expected)
                        .contains("invalid username-password pair")
                        .doesNotContain("\n")
                        .doesNotContain("tenure-health");
                assertThat(tenure.path("status").asString())
                        .as("the database fallback carries the runs")
                        .isEqualTo("UP");
            }
            assertThat(warnings(output))
                    .as("WARN lines after two health checks within a minute")
                    .isEqualTo(1);
            long t0 = System.nanoTime();
            assertThat(app.getBean(dev.tenure.Tenure.class).valkeyProblem())
                    .hasValueSatisfying(p -> assertThat(p).startsWith(expected));
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            System.out.println("Valkey's answer to a wrong password came in " + took.toMillis()
                    + " ms (connection timeout " + CONNECTION_TIMEOUT.toMillis() + " ms)");
            assertThat(took).isLessThanOrEqualTo(Timing.scaled(CONNECTION_TIMEOUT));
        }
    }

    @Test
    void wrongPassword_withValkeyRequired_theApplicationDoesNotStart_andTheFailureNamesTheProperty(
            CapturedOutput output) {
        assertThatThrownBy(() -> app("tenure.valkey.required=true").close())
                .satisfies(e -> assertThat(configurationFailure(e))
                        .as("the TenureConfigurationException in the causes")
                        .isNotNull()
                        .extracting(TenureConfigurationException::where)
                        .isEqualTo("tenure.valkey.required"));
        System.out.println("start-up failure report:\n"
                + output.getAll()
                        .lines()
                        .dropWhile(l -> !l.contains("APPLICATION FAILED TO START"))
                        .limit(12)
                        .reduce("", (a, b) -> a + b + "\n"));
        assertThat(output.getAll())
                .contains("APPLICATION FAILED TO START")
                .contains("tenure.valkey.required")
                .contains("WRONGPASS");
    }
}
