package dev.tenure.bench.coordinated;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.atomic.LongAdder;
import javax.net.SocketFactory;

/**
 * Counts round trips on the wire: pgjdbc's {@code socketFactory} property names this class, and every socket it makes
 * counts a round trip each time the client reads after having written. A request the client writes in several pieces
 * and an answer it reads in several pieces still count once. Reads with no write before them (notifications a LISTEN
 * connection waits for) count no round trip. Only connections opened with the property count; the counters are global.
 *
 * <p>Thread-safe. pgjdbc builds it by reflection, hence public with a public no-argument constructor.
 */
public final class RoundTripSocketFactory extends SocketFactory {

    static final LongAdder ROUND_TRIPS = new LongAdder();
    static final LongAdder BYTES_OUT = new LongAdder();
    static final LongAdder BYTES_IN = new LongAdder();

    public RoundTripSocketFactory() {}

    @Override
    public Socket createSocket() {
        return new CountingSocket();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new java.net.InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress local, int localPort) throws IOException {
        return connected(new java.net.InetSocketAddress(host, port), new java.net.InetSocketAddress(local, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new java.net.InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(InetAddress host, int port, InetAddress local, int localPort) throws IOException {
        return connected(new java.net.InetSocketAddress(host, port), new java.net.InetSocketAddress(local, localPort));
    }

    /** A counting socket connected to {@code remote}, bound first to {@code local} unless that is null. */
    private Socket connected(java.net.InetSocketAddress remote, java.net.InetSocketAddress local) throws IOException {
        Socket s = createSocket();
        if (local != null) {
            s.bind(local);
        }
        s.connect(remote);
        return s;
    }

    /**
     * A plain socket whose streams count; one socket is used by one thread at a time (pgjdbc locks the connection).
     * Inside the stream classes {@code in} and {@code out} are the socket's own streams.
     */
    private static final class CountingSocket extends Socket {
        private volatile boolean wrote;
        private InputStream countedIn;
        private OutputStream countedOut;

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (countedIn == null) {
                countedIn = new FilterInputStream(super.getInputStream()) {
                    @Override
                    public int read() throws IOException {
                        int b = super.read();
                        if (b >= 0) {
                            received(1);
                        }
                        return b;
                    }

                    @Override
                    public int read(byte[] buf, int off, int len) throws IOException {
                        int n = in.read(buf, off, len);
                        if (n > 0) {
                            received(n);
                        }
                        return n;
                    }
                };
            }
            return countedIn;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (countedOut == null) {
                countedOut = new FilterOutputStream(super.getOutputStream()) {
                    @Override
                    public void write(int b) throws IOException {
                        out.write(b);
                        sent(1);
                    }

                    @Override
                    public void write(byte[] buf, int off, int len) throws IOException {
                        out.write(buf, off, len);
                        sent(len);
                    }
                };
            }
            return countedOut;
        }

        private void sent(int n) {
            BYTES_OUT.add(n);
            wrote = true;
        }

        private void received(int n) {
            BYTES_IN.add(n);
            if (wrote) {
                wrote = false;
                ROUND_TRIPS.increment();
            }
        }
    }
}
