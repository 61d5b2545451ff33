package dev.tenure.console;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.stream.Collectors;

/** A plain HTTP client for the console's tests (redirects not followed). */
final class Http {

    private static final HttpClient CLIENT =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {}

    /** A GET; {@code headers} as name, value, name, value… */
    static HttpResponse<String> get(String url, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Signs in at {@code console} (its base URL) as a browser does after the operator typed the credentials: GET
     * {@code /signin} with them; returns the session cookie ({@code name=value}) the console set.
     */
    static String signIn(String console, String user, String password) throws IOException, InterruptedException {
        HttpResponse<String> r = get(console + "/signin?next=%2F", "Authorization", basic(user, password));
        if (r.statusCode() != 303) {
            throw new AssertionError("sign-in answered " + r.statusCode() + ": " + r.body());
        }
        String cookie = r.headers().firstValue("Set-Cookie").orElseThrow(() -> new AssertionError("no session cookie"));
        return cookie.substring(0, cookie.indexOf(';'));
    }

    /** A form POST; {@code headers} as name, value, name, value… */
    static HttpResponse<String> post(String url, Map<String, String> form, String... headers)
            throws IOException, InterruptedException {
        String body = form.entrySet().stream()
                .map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
