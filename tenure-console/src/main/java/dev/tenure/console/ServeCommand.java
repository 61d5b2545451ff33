package dev.tenure.console;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code serve}: the web page on the JDK's HTTP server until the process is stopped. */
@Command(name = "serve", description = "Serve the web page (read-only unless --actions) until stopped.")
final class ServeCommand implements java.util.concurrent.Callable<Integer> {

    @Mixin
    DatabaseOptions database;

    @Option(
            names = "--bind",
            defaultValue = "127.0.0.1",
            description = "address to listen on (default: ${DEFAULT-VALUE})")
    String bind;

    @Option(names = "--port", defaultValue = "8089", description = "port, 0 for a free one (default: ${DEFAULT-VALUE})")
    int port;

    @Option(
            names = "--valkey",
            paramLabel = "HOST:PORT",
            description = "also read Valkey's lease keys (standalone server; "
                    + "password from env TENURE_VALKEY_PASSWORD, user from --valkey-user)")
    String valkey;

    @Option(names = "--valkey-user", description = "Valkey ACL user")
    String valkeyUser;

    @Option(
            names = "--valkey-namespace",
            defaultValue = "tenure",
            description = "Tenure's Valkey namespace (default: ${DEFAULT-VALUE})")
    String namespace;

    @Option(
            names = "--actions",
            description = "enable force-release behind sign-in as --admin-user with the password "
                    + "from env TENURE_CONSOLE_PASSWORD or --admin-password-file")
    boolean actions;

    @Option(
            names = "--admin-user",
            defaultValue = "admin",
            description = "operator user for actions (default: ${DEFAULT-VALUE})")
    String adminUser;

    @Option(names = "--admin-password-file", description = "file holding the operator's password")
    Path adminPasswordFile;

    @Option(
            names = "--refresh",
            defaultValue = "5s",
            converter = DurationConverter.class,
            description = "how often an open page refreshes itself, 0s for never (default: ${DEFAULT-VALUE})")
    Duration refresh;

    @Option(
            names = "--trace-link",
            paramLabel = "URL",
            defaultValue = "${env:TENURE_CONSOLE_TRACE_LINK}",
            description = "link each run's trace id to the trace UI: a URL with {traceId}, e.g. "
                    + "https://tempo.example/trace/{traceId} (default: $TENURE_CONSOLE_TRACE_LINK)")
    String traceLink;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        try (HikariDataSource ds = database.open()) {
            TenureConsole.Builder b = TenureConsole.builder(ds)
                    .schema(database.schema)
                    .refreshEvery(refresh)
                    .traceLink(traceLink);
            if (valkey != null) {
                b.valkey(valkey).valkeyNamespace(namespace);
                String pw = System.getenv("TENURE_VALKEY_PASSWORD");
                if (pw != null) {
                    b.valkeyCredentials(valkeyUser, pw);
                }
            }
            if (actions) {
                b.actions(adminUser, adminPassword());
            }
            CountDownLatch stopped = new CountDownLatch(1);
            try (ConsoleServer server = b.build().serve(new InetSocketAddress(bind, port))) {
                Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown, "tenure-console-stop"));
                spec.commandLine()
                        .getOut()
                        .println("Tenure console on " + server.url() + "/ ("
                                + (actions ? "actions enabled for " + adminUser : "read-only") + "); stop with Ctrl-C");
                spec.commandLine().getOut().flush();
                stopped.await();
            }
        }
        return 0;
    }

    private String adminPassword() {
        if (adminPasswordFile != null) {
            try {
                return Files.readString(adminPasswordFile).strip();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read --admin-password-file: " + e.getMessage(), e);
            }
        }
        String pw = System.getenv("TENURE_CONSOLE_PASSWORD");
        if (pw == null) {
            throw new IllegalArgumentException(
                    "--actions needs the operator's password: set TENURE_CONSOLE_PASSWORD or "
                            + "--admin-password-file");
        }
        return pw;
    }
}
