package dev.tenure.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay from a loopback port of its own to one server (Valkey, Postgres), so that one process of a test reaches
 * that server by a path no other process uses, and {@link PacketFilter} can cut that path alone. Bytes pass unchanged
 * in both directions; a half-close is passed on. The relay never resets a connection on its own: when its path is
 * cut, both ends simply hear nothing until the path is healed.
 *
 * <pre>{@code
 * try (TcpRelay toValkey = TcpRelay.to(valkey.host(), valkey.port())) {
 *     worker = JvmProcess.start(Worker.class, toValkey.address());   // the worker's own path to Valkey
 *     filter.cut(toValkey.port());                                    // packets on that path are dropped
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} stops accepting, closes every relayed connection and stops the relay's threads.
 */
public final class TcpRelay implements AutoCloseable {

    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final ExecutorService threads;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    private TcpRelay(ServerSocket listener, String targetHost, int targetPort) {
        this.listener = listener;
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        AtomicInteger n = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "tenure-relay-" + listener.getLocalPort() + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        threads.execute(this::accept);
    }

    /** Starts a relay on a free loopback port to {@code host:port}. */
    public static TcpRelay to(String host, int port) {
        for (int attempt = 0; attempt < 20; attempt++) {
            int local = FreePorts.pick(false);
            ServerSocket listener = null;
            try {
                listener = new ServerSocket();
                listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), local));
                return new TcpRelay(listener, host, port);
            } catch (IOException e) {
                closeQuietly(listener); // taken between the check and the bind: try another port
            }
        }
        throw new IllegalStateException("could not bind a loopback port for a relay to " + host + ":" + port);
    }

    /** The loopback port the relay listens on. */
    public int port() {
        return listener.getLocalPort();
    }

    /** {@code 127.0.0.1:port}: where the process that uses this path connects. */
    public String address() {
        return listener.getInetAddress().getHostAddress() + ":" + port();
    }

    /** {@code jdbcUrl} with its {@code host:port} replaced by this relay's address. */
    public String jdbcUrl(String jdbcUrl) {
        return jdbcUrl.replaceFirst("//[^/]*/", "//" + address() + "/");
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                threads.execute(() -> connect(client));
            } catch (IOException e) {
                if (!closed) {
                    System.err.println("relay " + address() + " stopped accepting: " + e);
                }
                return;
            }
        }
    }

    private void connect(Socket client) {
        Socket server = new Socket();
        open.add(client);
        open.add(server);
        try {
            client.setTcpNoDelay(true);
            server.setTcpNoDelay(true);
            server.connect(new InetSocketAddress(targetHost, targetPort), CONNECT_TIMEOUT_MILLIS);
            AtomicInteger ended = new AtomicInteger();
            threads.execute(() -> pump(server, client, ended));
            pump(client, server, ended);
        } catch (IOException e) {
            close(client, server);
        }
    }

    /**
     * Copies {@code from} to {@code to} until {@code from} ends; then half-closes {@code to}, and closes both once the
     * other direction has ended too ({@code ended} counts the directions).
     */
    private void pump(Socket from, Socket to, AtomicInteger ended) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
            to.shutdownOutput();
            if (ended.incrementAndGet() == 2) {
                close(from, to);
            }
        } catch (IOException e) {
            close(from, to);
        }
    }

    private void close(Socket a, Socket b) {
        closeQuietly(a);
        closeQuietly(b);
        open.remove(a);
        open.remove(b);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            // closing is all that is left to do
        }
    }

    /** Stops accepting and closes every relayed connection. Idempotent. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        open.forEach(TcpRelay::closeQuietly);
        open.clear();
        threads.shutdownNow();
    }

    @Override
    public String toString() {
        return "TcpRelay[" + address() + " -> " + targetHost + ":" + targetPort + "]";
    }
}
