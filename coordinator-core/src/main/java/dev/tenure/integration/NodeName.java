package dev.tenure.integration;

import java.net.InetAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The name of a node (a process of the application) as people read it: recorded on every run and election term next to
 * the owner id, and shown by the console, the CLI and the actuator endpoint instead of the owner id. The owner id stays
 * what fencing compares; the node name is only for people, so two nodes may even share one.
 *
 * <p>By default {@code <host>/<application>/<pid>} (e.g. {@code web-3/invoicing/22418}), or {@code <host>/<pid>}
 * without an application name. In a container the host name is the pod's or the container's, which tells nodes apart
 * where every pid is 1.
 */
public final class NodeName {

    /** Longest accepted node name, in characters. */
    public static final int MAX_LENGTH = 200;

    private NodeName() {}

    /**
     * {@code name} if it is a valid node name: 1 to {@value #MAX_LENGTH} characters, not only blanks, no control
     * characters (it is shown in tables and logs).
     *
     * @throws IllegalArgumentException naming the problem
     * @throws NullPointerException     if {@code name} is null
     */
    public static String check(String name) {
        Objects.requireNonNull(name, "node name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a node name must not be blank (got '" + name + "')");
        }
        if (name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a node name must have at most " + MAX_LENGTH + " characters (got "
                    + name.length() + ": '" + name.substring(0, 40) + "...')");
        }
        if (name.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("a node name must not contain control characters such as line breaks "
                    + "(got '" + name.replaceAll("\\p{Cntrl}", "?") + "')");
        }
        return name;
    }

    /** {@code <host>/<pid>}: the default without an application name. */
    public static String defaultName() {
        return defaultName(null);
    }

    /**
     * {@code <host>/<application>/<pid>}, or {@code <host>/<pid>} when {@code application} is null or blank; cut to
     * {@value #MAX_LENGTH} characters (the pid kept).
     */
    public static String defaultName(@Nullable String application) {
        return compose(host(), application, ProcessHandle.current().pid());
    }

    /** The default name from its parts; package-private for tests. */
    static String compose(String host, @Nullable String application, long pid) {
        String tail = (application == null || application.isBlank() ? "" : "/" + strip(application)) + "/" + pid;
        String h = host == null || host.isBlank() ? "unknown-host" : strip(host);
        String name = h + tail;
        if (name.length() > MAX_LENGTH) {
            name = name.substring(0, Math.max(0, MAX_LENGTH - Long.toString(pid).length() - 1)) + "/" + pid;
        }
        return check(name);
    }

    private static String strip(String s) {
        return s.strip().replaceAll("\\p{Cntrl}", "");
    }

    /**
     * The host name: {@code HOSTNAME} (set in containers: the pod's name in Kubernetes), else {@code COMPUTERNAME}
     * (Windows), else the local host's name as the JDK resolves it (which may ask DNS once).
     */
    static String host() {
        for (String variable : new String[] {"HOSTNAME", "COMPUTERNAME"}) {
            String v = System.getenv(variable);
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException | RuntimeException e) {
            return "unknown-host";
        }
    }
}
