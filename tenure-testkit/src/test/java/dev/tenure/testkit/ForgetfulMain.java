package dev.tenure.testkit;

/** Run by {@link ShutdownHookIT}: starts a server, prints its pid and exits without closing it. */
public final class ForgetfulMain {

    private ForgetfulMain() {}

    public static void main(String[] args) {
        ValkeyServer server = ValkeyServers.standalone();
        System.out.println("PID " + server.pid());
        System.out.println("DIR " + server.logFile().orElseThrow().getParent());
        System.exit(0);
    }
}
