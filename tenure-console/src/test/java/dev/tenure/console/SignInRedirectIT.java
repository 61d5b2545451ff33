package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.tenure.Tenure;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, item 11: after sign-in the console sends the browser back to {@code next} only when it is a path of the
 * console; anything else lands on the overview. Over plain HTTP (the {@code Location} header exactly) and in a real
 * headless Chromium, whose WHATWG URL parser strips tabs and newlines and reads {@code \} as {@code /}: a second local
 * server on another port plays the foreign site and must never be visited. {@link ReturnPathTest} has the full list of
 * inputs.
 */
class SignInRedirectIT {

    private static final String PASSWORD = "correct horse battery";
    private static TestDatabase db;
    private static ConsoleServer console;
    private static HttpServer elsewhere;
    private static final List<String> visitsElsewhere = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        db = TestDatabase.forClass(SignInRedirectIT.class);
        Tenure.builder().dataSource(db.pool()).build().close(); // the schema, for the overview
        console = TenureConsole.builder(db.pool())
                .actions("ops", PASSWORD)
                .refreshEvery(Duration.ZERO)
                .build()
                .serve(new InetSocketAddress("127.0.0.1", 0));
        elsewhere = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        elsewhere.createContext("/", exchange -> {
            visitsElsewhere.add(exchange.getRequestURI().toString());
            byte[] body = "another origin".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        elsewhere.start();
    }

    @AfterAll
    static void stop() {
        elsewhere.stop(0);
        console.close();
        db.close();
    }

    @Test
    void signIn_overHttp_anyNextOutsideTheConsole_redirectsToTheOverview() throws Exception {
        List<String> foreign = List.of(
                "/%09/evil.example/",
                "%2F%09%2Fevil.example%2F",
                "/%0A/evil.example/",
                "/%0D/evil.example/",
                "/%0D%0ASet-Cookie:%20x=1",
                "%09//evil.example/",
                "/%5Cevil.example",
                "%5C%5Cevil.example",
                "/%09%5Cevil.example",
                "//evil.example",
                "%2F%2Fevil.example",
                "/%252F%252Fevil.example",
                "/%2509/evil.example",
                "%20/evil.example",
                "https://evil.example/",
                "javascript:alert(1)",
                "evil.example");
        for (String raw : foreign) {
            HttpResponse<String> r = signIn(raw);
            assertThat(r.statusCode()).as("next=%s", raw).isEqualTo(303);
            assertThat(r.headers().firstValue("Location")).as("next=%s", raw).hasValue("/");
            assertThat(r.headers().firstValue("Set-Cookie"))
                    .as("signed in all the same")
                    .isPresent();
        }
        String job = "/job?key=" + URLEncoder.encode("billing/nightly", StandardCharsets.UTF_8);
        assertThat(signIn(URLEncoder.encode(job, StandardCharsets.UTF_8))
                        .headers()
                        .firstValue("Location"))
                .as("a job page, its key with an encoded slash")
                .hasValue("/job?key=billing%2Fnightly");
    }

    @Test
    void signIn_inChromium_foreignNextsStayOnTheConsole_andItsParserAgreesWithTheRule() throws Exception {
        String there = "127.0.0.1:" + elsewhere.getAddress().getPort();
        List<String> foreign = List.of(
                "/%09/" + there + "/tab",
                "/%0A/" + there + "/lf",
                "%0D//" + there + "/cr",
                "/%5C" + there + "/backslash",
                "%5C%5C" + there + "/backslashes",
                "%20//" + there + "/space");
        try (ChromiumTab tab = HeadlessChromium.find().open()) {
            tab.answerSignIn("ops", PASSWORD);
            tab.navigate(console.url() + "/");
            String origin = tab.evaluate("location.origin").asText();
            assertThat(tab.evaluate("new URL('/\\t/" + there + "/', location.origin).host")
                            .asText())
                    .as("the premise: the browser reads /<TAB>/host as another host")
                    .isEqualTo(there);
            for (String raw : foreign) {
                tab.evaluate("window.stale = true");
                tab.navigate(console.url() + "/signin?next=" + raw);
                tab.await("!window.stale && document.readyState === 'complete'", Duration.ofSeconds(20));
                assertThat(tab.evaluate("location.origin").asText())
                        .as("next=%s\n%s", raw, tab.describe())
                        .isEqualTo(origin);
                assertThat(tab.evaluate("location.pathname").asText())
                        .as("next=%s", raw)
                        .isEqualTo("/");
            }
            assertThat(visitsElsewhere).as("requests the foreign site got").isEmpty();
            for (String kept : ReturnPathTest.KEPT) {
                assertThat(tab.evaluate("new URL(" + Json.write(kept) + ", 'http://console.invalid/').origin")
                                .asText())
                        .as("Chromium resolves the kept %s", kept)
                        .isEqualTo("http://console.invalid");
            }
            tab.screenshot(Path.of(System.getProperty("tenure.console.target", "target"))
                    .resolve("console-signin-redirect.png"));
        }
    }

    private static HttpResponse<String> signIn(String rawNext) throws Exception {
        return Http.get(console.url() + "/signin?next=" + rawNext, "Authorization", Http.basic("ops", PASSWORD));
    }
}
