package dev.tenure.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks loopback ports in 20000–40000 that bind right now. Another process can still take a port between the check
 * and the server's own bind, so callers retry on "Address already in use". A port is handed out at most once per JVM.
 */
final class FreePorts {

    static final int LOW = 20_000;
    static final int HIGH = 40_000;
    /** Valkey's cluster bus listens on the data port + 10000. */
    static final int CLUSTER_BUS_OFFSET = 10_000;

    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {}

    /** A free port; if {@code withClusterBus}, port + 10000 is free too and still below 40000. */
    static int pick(boolean withClusterBus) {
        int high = withClusterBus ? HIGH - CLUSTER_BUS_OFFSET : HIGH;
        for (int attempt = 0; attempt < 500; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(LOW, high);
            if (HANDED_OUT.contains(port)) {
                continue;
            }
            if (bindable(port) && (!withClusterBus || bindable(port + CLUSTER_BUS_OFFSET)) && HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("found no free loopback port in " + LOW + "-" + HIGH + " after 500 tries");
    }

    static boolean bindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
