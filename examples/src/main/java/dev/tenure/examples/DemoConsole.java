package dev.tenure.examples;

import dev.tenure.console.ConsoleServer;
import dev.tenure.console.TenureConsole;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import javax.sql.DataSource;

/**
 * The end of the main demo: the ops console on the demo's database, so a newcomer can look at what just happened
 * (who ran which fire, the takeovers, the stale write refused), until Enter. Only in an interactive terminal, and not
 * when {@code TENURE_DEMO_CONSOLE=off} ({@code ./scripts/demo.sh --no-console}) or {@code CI} is set: tests and CI never
 * wait.
 */
final class DemoConsole {

    private DemoConsole() {}

    static void offer(DataSource dataSource) {
        if ("off".equals(System.getenv("TENURE_DEMO_CONSOLE"))
                || System.getenv("CI") != null
                || System.console() == null) {
            System.out.println("\nConsole: not started (--no-console, CI, or not an interactive terminal).");
            return;
        }
        try (ConsoleServer server = serve(dataSource)) {
            System.out.println("\nConsole: " + server.url() + "/job?key=settlement   (all jobs and elections: "
                    + server.url() + "/)");
            System.out.println("Press Enter to stop it and drop the demo database.");
            while (true) {
                int c = System.in.read();
                if (c == '\n' || c < 0) {
                    break;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ConsoleServer serve(DataSource dataSource) {
        TenureConsole console = TenureConsole.builder(dataSource).build();
        try {
            return console.serve(new InetSocketAddress("127.0.0.1", 8089));
        } catch (UncheckedIOException busy) {
            return console.serve(new InetSocketAddress("127.0.0.1", 0));
        }
    }
}
