package dev.tenure.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tenure.testkit.Timing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One tab of its own headless Chromium, driven through the DevTools protocol over a WebSocket (java.net.http, no
 * extra install): it navigates, clicks and types as a person does (mouse and keyboard events at the element's place on
 * the screen, not DOM calls), reads the page with JavaScript, and answers the browser's sign-in prompt (HTTP Basic)
 * the way an operator would type the credentials into it. Every response the tab gets is logged for failure messages.
 * A fresh, empty profile per tab; {@link #close()} ends the browser and deletes the profile. Not thread-safe: one test
 * thread drives it (events are handled on the WebSocket's thread).
 */
final class ChromiumTab implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    private final Process browser;
    private final Path profile;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final List<String> responses = new CopyOnWriteArrayList<>();
    private final List<String> signInPrompts = new CopyOnWriteArrayList<>();
    private final StringBuilder partial = new StringBuilder();
    private CompletableFuture<?> sending = CompletableFuture.completedFuture(null);
    private volatile String[] credentials;

    private ChromiumTab(Process browser, Path profile, String pageSocket) {
        this.browser = browser;
        this.profile = profile;
        this.socket = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .connectTimeout(Duration.ofSeconds(10))
                .buildAsync(URI.create(pageSocket), new Events())
                .join();
    }

    /** Starts {@code binary} headless with remote debugging on a free port and attaches to its one page. */
    static ChromiumTab open(String binary) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("tenure-chromium-");
        List<String> cmd = new ArrayList<>(List.of(binary));
        cmd.addAll(HeadlessChromium.FLAGS);
        cmd.addAll(List.of(
                "--window-size=1280,900",
                "--remote-debugging-port=0",
                "--remote-debugging-address=127.0.0.1",
                "--user-data-dir=" + profile,
                "about:blank"));
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(profile.resolve("stdout.txt").toFile())
                .redirectError(profile.resolve("stderr.txt").toFile())
                .start();
        try {
            ChromiumTab tab = new ChromiumTab(p, profile, pageSocket(p, profile));
            tab.call("Page.enable", Map.of());
            tab.call("Network.enable", Map.of());
            return tab;
        } catch (RuntimeException | IOException | InterruptedException e) {
            stop(p, profile);
            throw e;
        }
    }

    /** The page target's WebSocket, from the port Chromium writes into {@code DevToolsActivePort}. */
    private static String pageSocket(Process p, Path profile) throws IOException, InterruptedException {
        Path portFile = profile.resolve("DevToolsActivePort");
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(30)).toNanos();
        while (!Files.isRegularFile(portFile) || Files.readAllLines(portFile).isEmpty()) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("Chromium did not open its DevTools port (alive: " + p.isAlive() + "): "
                        + Files.readString(profile.resolve("stderr.txt")));
            }
            Thread.sleep(50);
        }
        String port = Files.readAllLines(portFile).get(0).trim();
        HttpResponse<String> list = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        for (JsonNode target : JSON.readTree(list.body())) {
            if (target.get("type").asText().equals("page")) {
                return target.get("webSocketDebuggerUrl").asText();
            }
        }
        throw new IllegalStateException("no page target in " + list.body());
    }

    /**
     * From now on, answers every sign-in prompt (an HTTP 401 with a Basic challenge) with {@code user} and
     * {@code password}, as an operator typing them into the browser's dialog would; the browser then keeps them
     * for that site, as it does.
     */
    void answerSignIn(String user, String password) {
        credentials = new String[] {user, password};
        call("Fetch.enable", Map.of("handleAuthRequests", true, "patterns", List.of(Map.of("urlPattern", "*"))));
    }

    /** Opens {@code url} and waits until the page has loaded. */
    void navigate(String url) {
        call("Page.navigate", Map.of("url", url));
        await("document.readyState === 'complete' && location.href !== 'about:blank'", Duration.ofSeconds(20));
    }

    /** Clicks the middle of the element {@code selector} finds, with the mouse (scrolled into view first). */
    void click(String selector) {
        // the page's stylesheets and scripts first: a click aimed before they apply lands where the element was
        await("document.readyState === 'complete'", Duration.ofSeconds(10));
        JsonNode at = evaluate("(() => { const e = document.querySelector(" + quote(selector) + "); "
                + "if (!e) return null; e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                + "return [r.x + r.width / 2, r.y + r.height / 2]; })()");
        if (at == null || at.isNull()) {
            throw new AssertionError("nothing to click at " + selector + " on " + describe());
        }
        double x = at.get(0).asDouble();
        double y = at.get(1).asDouble();
        call("Input.dispatchMouseEvent", Map.of("type", "mouseMoved", "x", x, "y", y));
        for (String type : List.of("mousePressed", "mouseReleased")) {
            call("Input.dispatchMouseEvent", Map.of("type", type, "x", x, "y", y, "button", "left", "clickCount", 1));
        }
    }

    /** Types {@code text} into the focused element, as the keyboard would. */
    void type(String text) {
        call("Input.insertText", Map.of("text", text));
    }

    /** The value of a JavaScript expression on the page (JSON), or null for undefined. */
    JsonNode evaluate(String expression) {
        JsonNode r = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true));
        if (r.has("exceptionDetails")) {
            throw new IllegalStateException("the page threw on " + expression + ": " + r.get("exceptionDetails"));
        }
        return r.get("result").get("value");
    }

    /**
     * Waits until {@code condition} (JavaScript) is true on the page, through navigations; fails after {@code within}
     * (scaled) with the page's address, text and the responses it got.
     */
    void await(String condition, Duration within) {
        long deadline = System.nanoTime() + Timing.scaled(within).toNanos();
        RuntimeException last = null;
        while (System.nanoTime() < deadline) {
            try {
                JsonNode v = evaluate("!!(" + condition + ")");
                if (v != null && v.asBoolean()) {
                    return;
                }
            } catch (RuntimeException e) { // the page is between two documents
                last = e;
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        throw new AssertionError("not within " + Timing.scaled(within).toMillis() + " ms: " + condition + "\n"
                + describe() + (last == null ? "" : "\nlast error: " + last.getMessage()));
    }

    /** The page's visible text. */
    String text() {
        JsonNode t = evaluate("document.body ? document.body.innerText : ''");
        return t == null ? "" : t.asText();
    }

    /** The URLs for which the browser asked for a sign-in, in order. */
    List<String> signInPrompts() {
        return List.copyOf(signInPrompts);
    }

    /** Saves a PNG of what the tab shows. */
    void screenshot(Path png) throws IOException {
        Files.createDirectories(png.getParent());
        Files.write(
                png,
                Base64.getDecoder()
                        .decode(call("Page.captureScreenshot", Map.of("format", "png"))
                                .get("data")
                                .asText()));
    }

    /** Saves a PNG of the whole page, beyond the window's height. */
    void screenshotFullPage(Path png) throws IOException {
        JsonNode size = evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]");
        Map<String, Object> clip = Map.of(
                "x",
                0,
                "y",
                0,
                "width",
                size.get(0).asInt(),
                "height",
                size.get(1).asInt(),
                "scale",
                1);
        Files.createDirectories(png.getParent());
        Files.write(
                png,
                Base64.getDecoder()
                        .decode(call(
                                        "Page.captureScreenshot",
                                        Map.of("format", "png", "captureBeyondViewport", true, "clip", clip))
                                .get("data")
                                .asText()));
    }

    /** Where the tab is, what it shows and every response it got (for failure messages). */
    String describe() {
        String where;
        try {
            where = evaluate("location.href").asText() + "\n--- page text ---\n" + text();
        } catch (RuntimeException e) {
            where = "(page unreadable: " + e.getMessage() + ")";
        }
        return where + "\n--- responses ---\n" + String.join("\n", responses) + "\n--- sign-in prompts ---\n"
                + signInPrompts;
    }

    private JsonNode call(String method, Map<String, Object> params) {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        send(id, method, params);
        JsonNode r;
        try {
            r = answer.get(Timing.scaled(CALL_TIMEOUT).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + method, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Chromium did not answer " + method + ": " + e, e);
        } finally {
            pending.remove(id);
        }
        if (r.has("error")) {
            throw new IllegalStateException(method + " failed: " + r.get("error"));
        }
        return r.get("result");
    }

    /** Sends one command; sends are chained, as the WebSocket allows one at a time. */
    private synchronized void send(int id, String method, Map<String, Object> params) {
        String text;
        try {
            text = JSON.writeValueAsString(Map.of("id", id, "method", method, "params", params));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
        sending = sending.thenCompose(x -> socket.sendText(text, true));
    }

    /** Events: continue paused requests, answer sign-in prompts, log responses; answers complete their calls. */
    private final class Events implements WebSocket.Listener {

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String message = partial.toString();
                partial.setLength(0);
                handle(message);
            }
            ws.request(1);
            return null;
        }

        private void handle(String message) {
            JsonNode m;
            try {
                m = JSON.readTree(message);
            } catch (JsonProcessingException e) {
                throw new UncheckedIOException(e);
            }
            if (m.has("id")) {
                CompletableFuture<JsonNode> f = pending.get(m.get("id").asInt());
                if (f != null) {
                    f.complete(m);
                }
                return;
            }
            JsonNode p = m.get("params");
            switch (m.path("method").asText()) {
                case "Fetch.requestPaused" ->
                    send(
                            ids.incrementAndGet(),
                            "Fetch.continueRequest",
                            Map.of("requestId", p.get("requestId").asText()));
                case "Fetch.authRequired" -> {
                    signInPrompts.add(p.get("request").get("url").asText());
                    String[] c = credentials;
                    send(
                            ids.incrementAndGet(),
                            "Fetch.continueWithAuth",
                            Map.of(
                                    "requestId",
                                    p.get("requestId").asText(),
                                    "authChallengeResponse",
                                    c == null
                                            ? Map.of("response", "CancelAuth")
                                            : Map.of(
                                                    "response",
                                                    "ProvideCredentials",
                                                    "username",
                                                    c[0],
                                                    "password",
                                                    c[1])));
                }
                case "Network.responseReceived" ->
                    responses.add(p.get("response").get("status").asInt() + " "
                            + p.get("response").get("url").asText());
                default -> {}
            }
        }
    }

    private static String quote(String s) {
        try {
            return JSON.writeValueAsString(s);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Override
    public void close() {
        socket.abort();
        stop(browser, profile);
    }

    /** Ends the browser and the processes it started (renderers), then deletes the profile. */
    private static void stop(Process p, Path profile) {
        List<ProcessHandle> children = new ArrayList<>(p.descendants().toList());
        p.destroy();
        try {
            if (!p.waitFor(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        children.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        try (var files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            // best effort: a leftover temp directory is harmless
        }
    }
}
