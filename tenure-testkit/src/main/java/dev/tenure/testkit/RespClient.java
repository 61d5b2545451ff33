package dev.tenure.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A deliberately tiny RESP2 client: one connection per call, so it never holds a broken connection across a kill,
 * pause or restart. Replies map to String (simple and bulk strings), Long, List and null; error replies throw
 * {@link ValkeyReplyException} (inside arrays and pipelines they are returned as ValkeyReplyException elements);
 * connect and read timeouts throw {@link UncheckedIOException} wrapping the {@link java.net.SocketTimeoutException}.
 */
final class RespClient {

    private RespClient() {}

    static Object call(String host, int port, String password, Duration timeout, String... args) {
        Object reply =
                callAll(host, port, password, timeout, List.of(List.of(args))).get(0);
        if (reply instanceof ValkeyReplyException) {
            throw (ValkeyReplyException) reply;
        }
        return reply;
    }

    /** Sends all commands on one connection, then reads all replies; error replies become list elements. */
    static List<Object> callAll(String host, int port, String password, Duration timeout, List<List<String>> commands) {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        String address = host + ":" + port;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            socket.setTcpNoDelay(true);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            if (password != null) {
                write(out, List.of("AUTH", password));
                Object auth = read(in, address);
                if (auth instanceof ValkeyReplyException) {
                    throw (ValkeyReplyException) auth;
                }
            }
            for (List<String> command : commands) {
                write(out, command);
            }
            List<Object> replies = new ArrayList<>(commands.size());
            for (int i = 0; i < commands.size(); i++) {
                replies.add(read(in, address));
            }
            return replies;
        } catch (IOException e) {
            String name = commands.isEmpty() || commands.get(0).isEmpty()
                    ? ""
                    : commands.get(0).get(0);
            throw new UncheckedIOException(address + " " + name + ": " + e, e);
        }
    }

    private static void write(OutputStream out, List<String> args) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        buffer.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            buffer.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            buffer.writeBytes(bytes);
            buffer.writeBytes(new byte[] {'\r', '\n'});
        }
        out.write(buffer.toByteArray());
        out.flush();
    }

    private static Object read(InputStream in, String address) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed before a reply");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                return new ValkeyReplyException(address, line);
            case ':':
                return Long.parseLong(line);
            case '$':
                return readBulk(in, Integer.parseInt(line));
            case '*':
                return readArray(in, Integer.parseInt(line), address);
            default:
                throw new IOException("unexpected RESP2 type '" + (char) type + "' (RESP3 is not supported)");
        }
    }

    private static String readBulk(InputStream in, int length) throws IOException {
        if (length < 0) {
            return null;
        }
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length || in.read() != '\r' || in.read() != '\n') {
            throw new EOFException("connection closed inside a bulk string");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static List<Object> readArray(InputStream in, int length, String address) throws IOException {
        if (length < 0) {
            return null;
        }
        List<Object> items = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            items.add(read(in, address));
        }
        return items;
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int previous = -1;
        while (true) {
            int next = in.read();
            if (next < 0) {
                throw new EOFException("connection closed inside a reply line");
            }
            if (previous == '\r' && next == '\n') {
                byte[] bytes = line.toByteArray();
                return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
            }
            line.write(next);
            previous = next;
        }
    }
}
