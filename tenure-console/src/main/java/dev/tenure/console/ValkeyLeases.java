package dev.tenure.console;

import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.spi.LeaseEviction;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Tenure's Valkey lease keys, {@code {<namespace>:<job>}:lease} (holder) and their PTTL, for the jobs on a page:
 * one connection per read, every GET and PTTL pipelined, 1 s timeouts (an ACL user needs {@code +get +pttl} on
 * {@code ~{<namespace>:*}}). A force-release deletes a job's lease key ({@link #evict}: DEL, then PUBLISH of the
 * release notification so waiters try at once; {@code +del +publish} and {@code &{<namespace>:*}}). The key layout is
 * the Valkey store's ({@code ValkeyKeys.lease} in tenure-valkey; {@code ValkeyLeasesIT} checks that the lease Tenure
 * holds is where this looks). A key whose value
 * marks a completed fire ({@code d:<fireKey>}, left for one TTL after the run) has no holder and is not listed. Standalone
 * servers only: a cluster's MOVED reply is reported as an error, not followed. Thread-safe (no shared state).
 */
final class ValkeyLeases implements LeaseEviction {

    /** A job's Valkey lease: its holder's owner id and the time left; {@code error} when it could not be read. */
    record Lease(String owner, Duration left, String error) {}

    private static final int TIMEOUT_MS = 1000;
    /** How the value of a lease key that only marks a completed fire begins (no holder: see the lease script). */
    static final String COMPLETED_MARKER = "d:";

    private final String host;
    private final int port;
    private final String namespace;
    private final String user;
    private final String password;

    ValkeyLeases(String hostPort, String namespace, String user, String password) {
        int colon = hostPort.lastIndexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException("Valkey address must be host:port (got '" + hostPort + "')");
        }
        this.host = hostPort.substring(0, colon);
        this.port = Integer.parseInt(hostPort.substring(colon + 1));
        this.namespace = namespace;
        this.user = user;
        this.password = password;
    }

    /** The Valkey key of {@code jobKey}'s lease. */
    String leaseKey(String jobKey) {
        return "{" + namespace + ":" + jobKey + "}:lease";
    }

    /** The lease of each job key that has one; on a connection fault, every key maps to a lease with the error. */
    Map<String, Lease> leases(List<String> jobKeys) {
        Map<String, Lease> out = new HashMap<>();
        List<List<String>> commands = new ArrayList<>();
        for (String k : jobKeys) {
            commands.add(List.of("GET", leaseKey(k)));
            commands.add(List.of("PTTL", leaseKey(k)));
        }
        try (Socket s = send(commands)) {
            InputStream in = new BufferedInputStream(s.getInputStream());
            if (password != null) {
                read(in);
            }
            for (String k : jobKeys) {
                Object owner = read(in);
                Object pttl = read(in);
                if (owner instanceof String id && !id.startsWith(COMPLETED_MARKER)) {
                    out.put(k, new Lease(id, pttl instanceof Long ms && ms >= 0 ? Duration.ofMillis(ms) : null, null));
                }
            }
        } catch (IOException | RuntimeException e) {
            jobKeys.forEach(
                    k -> out.put(k, new Lease(null, null, "Valkey " + host + ":" + port + ": " + e.getMessage())));
        }
        return out;
    }

    /**
     * Deletes {@code jobKey}'s Valkey lease whoever holds it and tells its waiters (the notification is best effort).
     *
     * @throws LeaseStoreUnavailableException naming the server, if it cannot be reached or refuses the DEL
     */
    @Override
    public boolean evict(String jobKey) {
        String key = leaseKey(jobKey);
        try (Socket s = send(List.of(List.of("DEL", key), List.of("PUBLISH", key, "r")))) {
            InputStream in = new BufferedInputStream(s.getInputStream());
            if (password != null) {
                read(in);
            }
            boolean deleted = Long.valueOf(1L).equals(read(in));
            try {
                read(in);
            } catch (IOException e) {
                // no +publish: waiters find the key free at their next look
            }
            return deleted;
        } catch (IOException | RuntimeException e) {
            throw new LeaseStoreUnavailableException("Valkey " + host + ":" + port + ": " + e.getMessage(), jobKey, e);
        }
    }

    /** A connection with {@code commands} sent, after AUTH when there is a password; the caller reads the replies. */
    private Socket send(List<List<String>> commands) throws IOException {
        Socket s = new Socket();
        try {
            s.connect(new InetSocketAddress(host, port), TIMEOUT_MS);
            s.setSoTimeout(TIMEOUT_MS);
            OutputStream o = s.getOutputStream();
            if (password != null) {
                o.write(encode(user == null ? List.of("AUTH", password) : List.of("AUTH", user, password)));
            }
            for (List<String> c : commands) {
                o.write(encode(c));
            }
            o.flush();
            return s;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private static byte[] encode(List<String> command) {
        StringBuilder b = new StringBuilder("*").append(command.size()).append("\r\n");
        for (String arg : command) {
            b.append('$')
                    .append(arg.getBytes(StandardCharsets.UTF_8).length)
                    .append("\r\n")
                    .append(arg)
                    .append("\r\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** One reply: a String (bulk or simple), a Long, or null; an error reply throws. */
    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+':
                return line;
            case ':':
                return Long.parseLong(line);
            case '$':
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(n + 2);
                return new String(data, 0, n, StandardCharsets.UTF_8);
            case '-':
                throw new IOException("error reply: " + line);
            default:
                throw new IOException("unexpected reply type " + type);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\r'; c = in.read()) {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            b.write(c);
        }
        in.read();
        return b.toString(StandardCharsets.UTF_8);
    }
}
