package dev.tenure.console;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** A response of the console: status, headers (security headers always included) and body. */
record WebResponse(int status, Map<String, String> headers, byte[] body) {

    private static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    /** An HTML page. */
    static WebResponse html(int status, String html) {
        return of(status, "text/html; charset=utf-8", html.getBytes(StandardCharsets.UTF_8));
    }

    /** Any body with the security headers. */
    static WebResponse of(int status, String contentType, byte[] body) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Type", contentType);
        h.put("Content-Security-Policy", CSP);
        h.put("X-Content-Type-Options", "nosniff");
        h.put("X-Frame-Options", "DENY");
        // same-origin, not no-referrer: with no-referrer a browser sends "Origin: null" on the page's own form POST,
        // which the same-origin check must refuse; same-origin still sends nothing to other sites
        h.put("Referrer-Policy", "same-origin");
        h.put("Cache-Control", "no-store");
        return new WebResponse(status, h, body);
    }

    /** A 303 to {@code location} (after a POST). */
    static WebResponse seeOther(String location) {
        WebResponse r = of(303, "text/plain; charset=utf-8", "see other".getBytes(StandardCharsets.UTF_8));
        r.headers().put("Location", location);
        return r;
    }

    /** This response with one more header. */
    WebResponse with(String name, String value) {
        headers.put(name, value);
        return this;
    }
}
