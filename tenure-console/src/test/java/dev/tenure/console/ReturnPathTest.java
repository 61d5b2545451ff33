package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Issue 35, item 11: sign-in's {@code next} (as the console sees it, after the query's one decoding) goes back only
 * to a path of the console. Browsers parse a {@code Location} by the WHATWG URL standard: they drop tabs, line feeds
 * and carriage returns anywhere, trim leading and trailing control characters and spaces, and read {@code \} as
 * {@code /}; so {@code /<TAB>/evil} is {@code //evil}, another host. Every such value falls back to {@code /}.
 * {@link SignInRedirectIT} signs in over HTTP and in a real Chromium.
 */
class ReturnPathTest {

    /** Values sign-in must refuse: the browser would leave the console, or they are not a plain path of it. */
    static final List<String> REFUSED = List.of(
            "/\t/evil.example/",
            "/\n/evil.example/",
            "/\r/evil.example/",
            "/\r\n/evil.example/",
            "\t//evil.example/",
            "/\t\\evil.example/",
            "/job?key=a\tb",
            "/job?key=a\nLocation: //evil.example/",
            "/job\u0000",
            "/job\u007f",
            "/job\u000b",
            "/job\u0085",
            "/job\u2028",
            "/\\evil.example",
            "\\\\evil.example",
            "\\/evil.example",
            "//evil.example",
            "///evil.example",
            "/%09/evil.example/",
            "/%0a/evil.example/",
            "/%0D/evil.example/",
            "/%5cevil.example",
            "/%5Cevil.example",
            "/%2F%2Fevil.example",
            "/%2f/evil.example",
            "/%252F%252Fevil.example",
            "/%",
            "/%zz",
            "/job?key=%0a",
            "/job?key=%7F",
            "/job?key=%",
            "/job?key=%G1",
            " /evil.example",
            " //evil.example",
            "/evil.example ",
            "https://evil.example/",
            "http:evil.example",
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "evil.example",
            "./evil",
            "../evil",
            "/../evil",
            "/./evil",
            "/..//evil.example",
            "/job/..//evil.example",
            "/job//evil.example",
            "/job?key=<script>",
            "/job?key=\"x\"",
            "/jöb",
            "");

    /** Paths of the console that sign-in keeps; {@link SignInRedirectIT} has Chromium resolve each one. */
    static final List<String> KEPT = List.of(
            "/",
            "/job?key=nightly",
            "/job?key=billing%2Fnightly",
            "/job?key=a%5Cb",
            "/job?key=a+b&before=2026-12-07T00%3A00%3A00Z",
            "/job?key=%C3%A9t%C3%A9",
            "/job?key=x#live",
            "/?after=nightly",
            "/static/console.css");

    @ParameterizedTest
    @FieldSource("REFUSED")
    void sameOrigin_anythingABrowserCouldReadAsAnotherOriginOrThatIsNotAPlainPath_fallsBackToTheOverview(String next) {
        assertThat(ReturnPath.sameOrigin(next)).as("next=%s", printable(next)).isEqualTo("/");
    }

    @ParameterizedTest
    @FieldSource("KEPT")
    void sameOrigin_aPathOfTheConsole_isKept(String next) {
        assertThat(ReturnPath.sameOrigin(next)).isEqualTo(next);
    }

    @org.junit.jupiter.api.Test
    void sameOrigin_null_fallsBackToTheOverview() {
        assertThat(ReturnPath.sameOrigin(null)).isEqualTo("/");
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints()
                .forEach(c -> b.append(c < 0x20 || c == 0x7f || c > 0x7e ? String.format("\\u%04x", c) : (char) c));
        return b.toString();
    }
}
