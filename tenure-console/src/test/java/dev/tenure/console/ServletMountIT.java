package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.db.TenureAdmin;
import dev.tenure.db.TenureDataSources;
import dev.tenure.testkit.PostgresDatabase;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console mounted as a servlet at {@code /app/tenure-console/*} of a minimal embedded servlet container (Jetty 12.1,
 * Servlet 6.1, as in a Spring Boot 4 application), reading as a real read-only Postgres role (SELECT only): every read
 * view works, links stay under the mount point, and the write action fails typed (permission denied) and changes
 * nothing.
 */
class ServletMountIT {

    private static final String ROLE =
            "tenure_console_ro_" + UUID.randomUUID().toString().substring(0, 8);
    private static TestDatabase test;
    private static PostgresDatabase db;
    private static HikariDataSource owner;
    private static HikariDataSource readOnly;
    private static Server jetty;
    private static String base;

    @BeforeAll
    static void start() throws Exception {
        test = TestDatabase.forClass(ServletMountIT.class);
        db = test.database();
        owner = test.pool();
        try (Tenure tenure = Tenure.builder().dataSource(owner).build()) {
            tenure.coordinator().run("nightly", "2026-12-02", RunPolicy.skipFire(), ctx -> 1);
        }
        test.sql(
                "CREATE ROLE " + ROLE + " LOGIN PASSWORD 'read-only-pw'",
                "GRANT CONNECT ON DATABASE \"" + db.name() + "\" TO " + ROLE,
                "GRANT USAGE ON SCHEMA tenure TO " + ROLE,
                "GRANT SELECT ON ALL TABLES IN SCHEMA tenure TO " + ROLE);
        readOnly = TenureDataSources.hikari(db.jdbcUrl(), ROLE, "read-only-pw");

        jetty = new Server();
        ServerConnector connector = new ServerConnector(jetty);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler app = new ServletContextHandler("/app");
        // tag::mount[]
        TenureConsole console = TenureConsole.builder(readOnly).actions("ops", "operator-password").build();
        app.addServlet(new ServletHolder(new ConsoleServlet(console)), "/tenure-console/*");
        // end::mount[]
        jetty.setHandler(app);
        jetty.start();
        base = "http://127.0.0.1:" + connector.getLocalPort() + "/app/tenure-console";
    }

    @AfterAll
    static void stop() throws Exception {
        jetty.stop();
        readOnly.close();
        test.sql("DROP OWNED BY " + ROLE, "DROP ROLE " + ROLE);
        test.close();
    }

    @Test
    void mountedAtAPath_readsAsAReadOnlyRole_linksStayUnderTheMount() throws Exception {
        HttpResponse<String> overview = Http.get(base + "/");
        assertThat(overview.statusCode()).isEqualTo(200);
        assertThat(overview.body())
                .contains(
                        "href=\"/app/tenure-console/job?key=nightly\"",
                        "href=\"/app/tenure-console/static/console.css\"",
                        "src=\"/app/tenure-console/static/console.js\"");
        assertThat(Http.get(base).statusCode()).as("the mount point itself").isEqualTo(200);
        HttpResponse<String> job = Http.get(base + "/job?key=nightly");
        assertThat(job.statusCode()).isEqualTo(200);
        assertThat(job.body())
                .contains(
                        "<h1>nightly</h1>",
                        "badge st-COMPLETED",
                        "href=\"/app/tenure-console/signin?next=%2Fjob%3Fkey%3Dnightly\"");
        HttpResponse<String> css = Http.get(base + "/static/console.css");
        assertThat(css.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/css"));
    }

    @Test
    void writeAction_asTheReadOnlyRole_failsTyped_andChangesNothing() throws Exception {
        long epoch = TenureAdmin.create(owner).job("nightly").orElseThrow().epoch();
        String auth = Http.basic("ops", "operator-password");
        HttpResponse<String> signIn = Http.get(base + "/signin?next=%2Fjob%3Fkey%3Dnightly", "Authorization", auth);
        assertThat(signIn.headers().firstValue("Location")).hasValue("/app/tenure-console/job?key=nightly");
        assertThat(signIn.headers().firstValue("Set-Cookie"))
                .hasValueSatisfying(c -> assertThat(c).contains("; Path=/app/tenure-console/;"));
        String session = Http.signIn(base, "ops", "operator-password");
        String page = Http.get(base + "/job?key=nightly", "Authorization", auth, "Cookie", session)
                .body();
        Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
        assertThat(csrf.find()).as(page).isTrue();
        assertThat(page).contains("action=\"/app/tenure-console/release\"");
        HttpResponse<String> r = Http.post(
                base + "/release",
                Map.of("key", "nightly", "reason", "test", "csrf", csrf.group(1)),
                "Authorization",
                auth,
                "Cookie",
                session);
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.body()).contains("42501");
        assertThat(TenureAdmin.create(owner).job("nightly").orElseThrow().epoch())
                .isEqualTo(epoch);
    }
}
