package dev.tenure.console;

import dev.tenure.db.TenureAdmin;
import dev.tenure.db.TenureSchema;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Tenure's ops console on one database: the web page (jobs, one job's fires, the timeline, leader elections, live
 * refresh) that {@link #serve} runs on the JDK's HTTP server or {@link ConsoleServlet} mounts into a servlet container
 * (a Spring Boot application), and the queries the CLI ({@link ConsoleMain}) shares.
 *
 * <pre>{@code
 * TenureConsole console = TenureConsole.builder(dataSource).build();                 // read-only
 * try (ConsoleServer server = console.serve(new InetSocketAddress("127.0.0.1", 8089))) { ... server.url() ... }
 * }</pre>
 *
 * <p>Read-only by default: the page reads with SELECT only, so the data source may log in as a read-only role. The one
 * write action, force-release ({@link TenureAdmin#forceRelease}), exists only when {@link Builder#actions} set the
 * operator's credentials; it then needs the operator's sign-in (HTTP Basic, then a session cookie) and a CSRF token
 * issued in that session on the job's page. Thread-safe and stateless apart from its signing secrets; it never closes
 * the data source.
 */
public final class TenureConsole {

    private final ConsoleApp app;
    private final TenureAdmin admin;

    private TenureConsole(Builder b) {
        ConsoleQueries queries = new ConsoleQueries(b.dataSource, b.schema);
        ValkeyLeases valkey =
                b.valkey == null ? null : new ValkeyLeases(b.valkey, b.namespace, b.valkeyUser, b.valkeyPassword);
        // a force-release also deletes the job's Valkey lease when Valkey is given
        this.admin = valkey == null
                ? TenureAdmin.create(b.dataSource, b.schema)
                : TenureAdmin.create(b.dataSource, b.schema, valkey);
        this.app = new ConsoleApp(
                queries,
                admin,
                valkey,
                b.credentials,
                new Sessions(Clock.systemUTC()),
                new CsrfTokens(Clock.systemUTC()),
                (int) b.refresh.toSeconds(),
                b.runsPerPage,
                b.traceLink);
    }

    /** A console on {@code dataSource} (Tenure's tables in schema {@value TenureSchema#DEFAULT_SCHEMA} unless set). */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Serves the page on the JDK's HTTP server at {@code address} (port 0: a free one) until the returned server is
     * closed.
     *
     * @throws java.io.UncheckedIOException if the address cannot be bound
     */
    public ConsoleServer serve(InetSocketAddress address) {
        return ConsoleServer.start(app, address);
    }

    ConsoleApp app() {
        return app;
    }

    /** What the force-release action calls. */
    TenureAdmin admin() {
        return admin;
    }

    /** Configuration of a {@link TenureConsole}. Not thread-safe; build once. */
    public static final class Builder {
        private final DataSource dataSource;
        private String schema = TenureSchema.DEFAULT_SCHEMA;
        private String valkey;
        private String namespace = "tenure";
        private String valkeyUser;
        private String valkeyPassword;
        private Credentials credentials;
        private Duration refresh = Duration.ofSeconds(5);
        private int runsPerPage = 50;
        private TraceLink traceLink = TraceLink.NONE;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The schema of Tenure's tables (default {@code tenure}). */
        public Builder schema(String schema) {
            this.schema = TenureSchema.checkName(schema);
            return this;
        }

        /**
         * Also show Valkey's lease keys ({@code host:port} of a standalone server) and, from them, each job's mode; a
         * force-release then also deletes the job's Valkey lease.
         */
        public Builder valkey(String hostPort) {
            this.valkey = Objects.requireNonNull(hostPort, "hostPort");
            return this;
        }

        /** Tenure's Valkey namespace (default {@code tenure}), as in {@code ValkeyConfig.namespace}. */
        public Builder valkeyNamespace(String namespace) {
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            return this;
        }

        /** Valkey ACL credentials ({@code user} may be null for the default user). */
        public Builder valkeyCredentials(String user, String password) {
            this.valkeyUser = user;
            this.valkeyPassword = Objects.requireNonNull(password, "password");
            return this;
        }

        /**
         * Enables the write action (force-release) behind sign-in as {@code user} with {@code password} (at least 8
         * characters; HTTP Basic, then a session of {@link Sessions#VALIDITY}). Off by default: the console is
         * read-only.
         *
         * @throws IllegalArgumentException for a blank user, a user with ':' or a short password
         */
        public Builder actions(String user, String password) {
            this.credentials = new Credentials(user, password);
            return this;
        }

        /** How often an open page refreshes itself (default 5 s; zero: never). */
        public Builder refreshEvery(Duration every) {
            if (every.isNegative() || every.toSeconds() > 3600) {
                throw new IllegalArgumentException("refresh must be 0..3600 s (got " + every + ")");
            }
            this.refresh = every;
            return this;
        }

        /** Runs per page of a job's history (default 50, at most 500). */
        public Builder runsPerPage(int runs) {
            if (runs < 1 || runs > 500) {
                throw new IllegalArgumentException("runs per page must be 1..500 (got " + runs + ")");
            }
            this.runsPerPage = runs;
            return this;
        }

        /**
         * Links each run's trace id (kept when the application traces its runs) to the trace UI: {@code template} is an
         * http(s) URL with {@code {traceId}} where the id goes, e.g. {@code https://tempo.example/trace/{traceId}}.
         * Default none: the id is shown without a link.
         *
         * @throws IllegalArgumentException if it is not such a URL
         */
        public Builder traceLink(String template) {
            this.traceLink = TraceLink.of(template);
            return this;
        }

        public TenureConsole build() {
            return new TenureConsole(this);
        }
    }
}
