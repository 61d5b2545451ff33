package dev.tenure.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The console on the JDK's own HTTP server ({@code com.sun.net.httpserver}, no dependency): the standalone way
 * ({@code tenure-console serve}). Four request threads; request bodies are read up to {@value #MAX_BODY} bytes.
 * {@link #close()} stops it (idempotent).
 */
public final class ConsoleServer implements AutoCloseable {

    static final int MAX_BODY = 16 * 1024;
    private static final String NO_DELAY = "sun.net.httpserver.nodelay";
    private final HttpServer server;
    private final ExecutorService threads;

    private ConsoleServer(HttpServer server, ExecutorService threads) {
        this.server = server;
        this.threads = threads;
    }

    static ConsoleServer start(ConsoleApp app, InetSocketAddress address) {
        if (System.getProperty(NO_DELAY) == null) {
            // headers and body leave in two writes: without TCP_NODELAY the body waits for the client's delayed ACK
            // (about 40 ms a page). Read once per JVM, when the JDK's server is first used; the user's setting wins.
            System.setProperty(NO_DELAY, "true");
        }
        try {
            HttpServer server = HttpServer.create(address, 50);
            ExecutorService threads = Executors.newFixedThreadPool(4, r -> {
                Thread t = new Thread(r, "tenure-console-http");
                t.setDaemon(true);
                return t;
            });
            server.setExecutor(threads);
            server.createContext("/", exchange -> handle(app, exchange));
            server.start();
            return new ConsoleServer(server, threads);
        } catch (IOException e) {
            throw new UncheckedIOException("could not serve the console on " + address + ": " + e.getMessage(), e);
        }
    }

    /** {@code http://host:port} of the running server (the page is at {@code url() + "/"}). */
    public String url() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress().isAnyLocalAddress()
                ? "127.0.0.1"
                : a.getAddress().getHostAddress();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    /** The bound port. */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }

    private static void handle(ConsoleApp app, HttpExchange x) throws IOException {
        try (x) {
            String type = x.getRequestHeaders().getFirst("Content-Type");
            Map<String, String> form = type != null && type.startsWith("application/x-www-form-urlencoded")
                    ? WebRequest.params(body(x.getRequestBody()))
                    : Map.of();
            WebRequest req = new WebRequest(
                    x.getRequestMethod(),
                    x.getRequestURI().getPath(),
                    WebRequest.params(x.getRequestURI().getRawQuery()),
                    form,
                    x.getRequestHeaders()::getFirst,
                    "");
            WebResponse resp = app.handle(req);
            resp.headers().forEach((k, v) -> x.getResponseHeaders().set(k, v));
            boolean head = x.getRequestMethod().equals("HEAD");
            x.sendResponseHeaders(resp.status(), head ? -1 : resp.body().length);
            if (!head) {
                x.getResponseBody().write(resp.body());
            }
        }
    }

    static String body(InputStream in) throws IOException {
        byte[] b = in.readNBytes(MAX_BODY + 1);
        if (b.length > MAX_BODY) {
            throw new IOException("request body over " + MAX_BODY + " bytes");
        }
        return new String(b, StandardCharsets.UTF_8);
    }
}
