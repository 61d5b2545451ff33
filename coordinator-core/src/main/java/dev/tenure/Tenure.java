package dev.tenure;

import dev.tenure.integration.NodeName;
import dev.tenure.memory.InMemoryLeaseStore;
import dev.tenure.memory.InMemoryRunLedger;
import dev.tenure.memory.InMemoryScheduleLedger;
import dev.tenure.metrics.LeaseMetrics;
import dev.tenure.metrics.RunMetrics;
import dev.tenure.spi.DatabaseBackend;
import dev.tenure.spi.LeaseEviction;
import dev.tenure.spi.LeaseStore;
import dev.tenure.spi.RunLedger;
import dev.tenure.spi.ScheduleLedger;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

// Over 400 lines: Tenure.Builder is nested here (Tenure.builder() is the API) and documents each knob where it is set;
// the assembly is the constructor, and the knobs it fixes are a Settings record.
/**
 * Tenure for one application: one object from one builder, which hands out the {@link JobCoordinator}, plain
 * {@link Leases} and {@link LeaderElection}s, and closes what it created.
 *
 * <pre>{@code
 * Tenure tenure = Tenure.builder()
 *         .dataSource(dataSource)                                   // Tenure's schema is migrated on build()
 *         .valkey(ValkeyConfig.standalone("10.0.0.5:6379").build()) // optional: without it, the database mode
 *         .build();
 * RunOutcome<Integer> o = tenure.coordinator().run("settle", fireKey, RunPolicy.skipFire(),
 *         ctx -> ctx.completeInTransaction(dataSource, c -> settle(c)));
 * }</pre>
 *
 * <p>The database is mandatory. It holds the epochs, the fences and the run records in every mode, and module
 * {@code tenure-db} provides it, found with {@link java.util.ServiceLoader}. Valkey, from module {@code tenure-valkey},
 * is an optional fast filter in front of it. With Valkey, coordinated runs use it and fall back to the database alone
 * while it is unreachable: {@link JobCoordinator.Mode#VALKEY_WITH_DATABASE_FALLBACK}. Without Valkey, they use the
 * database alone: {@link JobCoordinator.Mode#DATABASE}. {@link #inMemory()} is a single-process Tenure for users' unit
 * tests.
 *
 * <p>Thread-safe. The data source stays the caller's: {@link #close()} does not close it.
 */
public final class Tenure implements AutoCloseable {

    /** How often the sweeper looks for missed fires by default. */
    public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(5);
    /** How long a schedule that no live process registers stays in the sweeps and health checks, by default. */
    public static final Duration DEFAULT_RETIRE_SCHEDULES_AFTER = Duration.ofDays(1);
    /** Valkey failures in a row that open the fallback breaker, by default ({@link Builder#fallbackBreaker}). */
    public static final int DEFAULT_BREAKER_FAILURES = CircuitBreaker.DEFAULT_FAILURES;
    /** How long the fallback breaker stays open, by default ({@link Builder#fallbackBreaker}). */
    public static final Duration DEFAULT_BREAKER_OPEN_FOR = CircuitBreaker.DEFAULT_OPEN_FOR;

    private static final Logger LOG = LoggerFactory.getLogger(Tenure.class);

    private final Settings settings;
    private final Leases database;
    private final @Nullable Leases valkey;
    private final RunLedger ledger;
    private final JobCoordinator coordinator;
    /** How Valkey is reached ("standalone [10.0.0.5:6379], namespace tenure"), or null in the database mode. */
    private final @Nullable String valkeyAddress;

    private final @Nullable String schema;
    private final List<LeaderElection> elections = new ArrayList<>();
    private final Sweeper sweeper;
    private boolean closed;

    private Tenure(
            Builder b,
            Settings settings,
            LeaseStore databaseStore,
            RunLedger ledger,
            ScheduleLedger schedules,
            @Nullable LeaseStore valkeyStore) {
        this.settings = settings;
        this.schema = b.inMemory ? null : b.schema;
        ValkeyConfig vc = b.valkeyConfig;
        this.valkeyAddress = valkeyStore == null || vc == null
                ? null
                : (vc.isCluster() ? "cluster " : "") + String.join(", ", vc.addresses()) + " (namespace "
                        + vc.namespace() + ")";
        Metrics bound = b.meterRegistry == null
                ? new Metrics(LeaseMetrics.none(), RunMetrics.none())
                : MeterBinding.bind(b.meterRegistry);
        RunTimes runTimes = new RunTimes(bound.runs);
        this.ledger = ledger;
        this.database = settings.leases(databaseStore, bound.leases, ledger);
        this.valkey = valkeyStore == null ? null : settings.leases(valkeyStore, bound.leases, ledger);
        this.coordinator = new JobCoordinator(settings, database, valkey, ledger, runTimes);
        if (b.meterRegistry != null) {
            MeterBinding.bind(b.meterRegistry, coordinator);
        }
        this.sweeper = new Sweeper(
                schedules,
                settings,
                runTimes,
                listener -> election(
                        Sweeper.electionName(settings.application()), settings.leaseDefaults(), null, listener));
    }

    /** An election on this Tenure's leases, with a breaker of its own; {@code label} null means the node's name. */
    private LeaseElection election(
            String name, LeaseOptions options, @Nullable String label, LeaderElection.Listener listener) {
        return new LeaseElection(
                name,
                label == null ? settings.electionLabel() : label,
                database,
                valkey,
                ledger,
                options,
                settings.breaker(),
                listener);
    }

    /** Where the lease and run meters go. */
    record Metrics(LeaseMetrics leases, RunMetrics runs) {}

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A Tenure in memory, for users' unit tests: the in-memory lease store and run ledger, the database mode, no
     * schema, no servers. <b>Single process only</b>: it coordinates the threads of one JVM, and a completion is not
     * transactional (see {@link InMemoryRunLedger}).
     */
    public static Tenure inMemory() {
        return builder().inMemory().build();
    }

    /**
     * The name of this node as people read it ({@link Builder#nodeName}; by default {@code <host>/<pid>}): recorded on
     * every run and election term, and as who registered a schedule.
     */
    public String nodeName() {
        return settings.nodeName();
    }

    /** The application whose schedules this process registers and may sweep ({@link Builder#application}). */
    public String application() {
        return settings.application();
    }

    /** The coordinator of job runs (one per Tenure). */
    public JobCoordinator coordinator() {
        return coordinator;
    }

    /** Plain leases and locks: on Valkey when it is configured, else on the database. */
    public Leases leases() {
        return valkey != null ? valkey : database;
    }

    /** Leases on the database, whose fencing tokens are epochs that {@link #fence} checks inside a transaction. */
    public Leases databaseLeases() {
        return database;
    }

    /** True when Valkey is configured (the coordinator's mode is then not {@link JobCoordinator.Mode#DATABASE}). */
    public boolean usesValkey() {
        return valkey != null;
    }

    /**
     * {@link #leaderElection(String, LeaseOptions, String, LeaderElection.Listener)} with the lease defaults of this
     * Tenure and this node's name as the label.
     */
    public LeaderElection leaderElection(String name, LeaderElection.Listener listener) {
        return leaderElection(name, settings.leaseDefaults(), null, listener);
    }

    /**
     * A leader election for the role {@code name}, which must be a valid key. It is not started yet: call
     * {@link LeaderElection#start()}. The role's database lease decides, and its epoch is the term. With Valkey
     * configured, the role's Valkey lease filters the candidates in front of it, and is skipped while Valkey is
     * unreachable. {@link #close()} stops the election if it still runs. Participants are processes with one Tenure
     * each, or several elections of one Tenure.
     *
     * @param options  the TTL of the role's leases, their renewal period and safety margin. A crashed leader is replaced
     *                 within about one TTL, a stopped one at once. Renewal and the fencing token are always on.
     * @param label    how this participant names itself in {@link LeaderElection#owner()} and the logs. A random
     *                 suffix keeps ids unique, so equal labels never share a lease. Null means this node's name
     *                 ({@link #nodeName()}, its first 100 characters).
     * @param listener told on the election's thread when this participant is elected and when it stops leading
     * @throws IllegalArgumentException if {@code name} is not a valid key, or {@code label} is blank or over 100 characters
     * @throws IllegalStateException    if this Tenure is closed
     */
    public synchronized LeaderElection leaderElection(
            String name, LeaseOptions options, @Nullable String label, LeaderElection.Listener listener) {
        requireOpen();
        LeaderElection e = election(name, options, label, listener);
        elections.add(e);
        return e;
    }

    /**
     * The fence check for a lease of {@link #databaseLeases()}, inside the caller's open transaction on
     * {@code connection}. It throws if the lease's epoch or owner is no longer current, so the transaction rolls back.
     *
     * @throws IllegalArgumentException if {@code lease} has no fencing token: it is not a database lease taken with one
     */
    public void fence(Connection connection, Lease lease) throws SQLException {
        OptionalLong epoch = lease.fencingToken();
        if (epoch.isEmpty()) {
            throw new IllegalArgumentException("lease '" + lease.key() + "' has no fencing token: take it from "
                    + "databaseLeases() with LeaseOptions.withFencingToken(true)");
        }
        ledger.fence(connection, lease.key(), epoch.getAsLong(), lease.owner());
    }

    /**
     * Records {@code job}'s schedule in Tenure's ledger and accounts for its fires from now on. The record is an
     * idempotent upsert. A schedule that differs from the stored one replaces it, with a warning that names both, as in
     * a rolling deploy. Of the processes that registered jobs, the one that leads the sweeper election looks for fires
     * that were due and did not complete, and applies the job's {@link MissedFirePolicy}.
     *
     * <p>The integrations register their jobs themselves: the Spring Boot starter its {@code @Coordinated} methods, the
     * Quartz integration its triggers. Call this for jobs that you run through {@link #coordinator()} yourself.
     * Registering a job key again replaces it.
     *
     * @throws IllegalStateException          if this Tenure is closed
     * @throws LeaseStoreUnavailableException if the database cannot be reached
     */
    public void register(ScheduledJob job) {
        Objects.requireNonNull(job, "job");
        requireOpen();
        sweeper.register(job, null);
    }

    /**
     * As {@link #register(ScheduledJob)}, for a host scheduler that has already computed the first fire it will fire:
     * a schedule new to the ledger is accounted for from {@code firstFire} on, so that a slot that passed between the
     * registration and the scheduler's start (an application context that is still starting, say) is not due. A
     * schedule already in the ledger keeps its account as it stands. The integrations use this; see the Spring Boot
     * starter's {@code @Coordinated} registration.
     *
     * @throws IllegalStateException          if this Tenure is closed
     * @throws LeaseStoreUnavailableException if the database cannot be reached
     */
    public void register(ScheduledJob job, Instant firstFire) {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(firstFire, "firstFire");
        requireOpen();
        sweeper.register(job, firstFire);
    }

    /**
     * As {@link #register(ScheduledJob)} for each of {@code jobs}, written to the ledger in a few statements (on
     * Postgres, a handful per thousand jobs) instead of one transaction per job: for a process that registers many jobs
     * at start-up. Each job's registration is what {@link #register(ScheduledJob)} would have made of it; a job key
     * named twice is registered twice, in order, the later replacing the earlier.
     *
     * @throws IllegalStateException          if this Tenure is closed
     * @throws LeaseStoreUnavailableException if the database cannot be reached
     */
    public void registerAll(Collection<ScheduledJob> jobs) {
        Objects.requireNonNull(jobs, "jobs");
        List<ScheduledJob> all = List.copyOf(jobs);
        requireOpen();
        if (!all.isEmpty()) {
            sweeper.registerAll(all);
        }
    }

    /** The jobs registered with {@link #register} in this process. */
    public List<ScheduledJob> scheduledJobs() {
        return sweeper.jobs();
    }

    /**
     * Asks Valkey whether it answers now: one read that changes nothing, bounded by the Valkey timeouts. Empty when it
     * answers or when Valkey is not configured; else what is wrong in one line that names the server, e.g.
     * {@code "Valkey 10.0.0.5:6379: WRONGPASS: invalid username-password pair or user is disabled."}. A problem
     * starts a Valkey outage if none is on (one WARN, counted in {@link JobCoordinator#fallbacks()}); an answer ends
     * one (one INFO).
     */
    public Optional<String> valkeyProblem() {
        if (valkey == null) {
            return Optional.empty();
        }
        Optional<String> problem = valkey.problem();
        coordinator.valkeyProbed(problem);
        return problem;
    }

    /**
     * Deletes a job's Valkey lease through this Tenure's Valkey client, for an operator's force-release (give it to
     * {@code TenureAdmin.create(dataSource, schema, eviction)} of module tenure-db). Empty without Valkey.
     */
    public Optional<LeaseEviction> valkeyEviction() {
        return valkey == null ? Optional.empty() : Optional.of(valkey::evict);
    }

    /**
     * How this Tenure coordinates, in one line: the mode, where Valkey is (or "database mode"), the schema and the lease
     * TTL. {@link Builder#build()} logs it at INFO.
     */
    public String summary() {
        JobCoordinator.Mode mode = coordinator.mode();
        String where = valkeyAddress == null ? "database mode" : "mode " + mode + ", Valkey " + valkeyAddress;
        String store = schema == null ? "in memory" : "schema " + schema;
        return "Tenure: " + where + ", " + store + ", lease TTL "
                + settings.leaseDefaults().ttl().toMillis() + " ms renewed every "
                + settings.leaseDefaults().renewEvery().toMillis() + " ms";
    }

    /**
     * The jobs registered with {@link #register} in one line, each with its schedule and missed-fire policy, for the
     * start-up log of an integration once it registered its jobs: e.g. {@code Tenure: 2 scheduled jobs: invoicing
     * (spring-cron 0 0 2 * * * (UTC), catch-up (newest 10, ...)), ...}.
     */
    public String scheduledJobsSummary() {
        List<ScheduledJob> jobs = sweeper.jobs();
        StringBuilder b = new StringBuilder("Tenure: ").append(jobs.size()).append(" scheduled job(s)");
        String sep = ": ";
        for (ScheduledJob j : jobs.stream()
                .sorted(java.util.Comparator.comparing(ScheduledJob::jobKey))
                .toList()) {
            b.append(sep)
                    .append(j.jobKey())
                    .append(" (")
                    .append(j.schedule().kind())
                    .append(' ')
                    .append(j.schedule().expression())
                    .append(", ")
                    .append(Sweeper.describe(j.policy()))
                    .append(')');
            sep = ", ";
        }
        return b.toString();
    }

    /** Logs the summary and, if Valkey does not answer, the WARN; or fails if Valkey is required. */
    private Tenure started(boolean valkeyRequired) {
        LOG.info(summary());
        if (valkey != null) {
            Optional<String> problem = valkey.problem();
            if (problem.isPresent() && valkeyRequired) {
                close();
                throw new ValkeyUnavailableException(problem.get());
            }
            coordinator.valkeyProbed(problem);
        }
        return this;
    }

    /** Who holds {@code key}'s database lease now, as the database sees it. */
    public Optional<Holder> holder(String key) {
        return ledger.holder(key);
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("this Tenure is closed");
        }
    }

    /** {@link #close(Duration)} with the builder's drain timeout ({@link Builder#drainTimeout}, 10 s by default). */
    @Override
    public void close() {
        close(settings.drainTimeout());
    }

    /**
     * Closes what it created, in order, so that no lease outlives it:
     *
     * <ol>
     *   <li>the sweeper and the elections, which stop, so successors take over at once;
     *   <li>the coordinator, which refuses new runs and waits up to {@code drainTimeout} for the runs in progress. It
     *       abandons the rest: ABANDONED with reason shutdown, both leases released. See
     *       {@link JobCoordinator#close(Duration)}.
     *   <li>the Valkey leases and store, then the database leases and store.
     * </ol>
     *
     * <p>Every lease is released before the client that holds it closes. Idempotent: a second call returns at once. The
     * data source stays open.
     */
    public void close(Duration drainTimeout) {
        JobCoordinator.checkDrain(drainTimeout);
        List<LeaderElection> running;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            running = List.copyOf(elections);
        }
        sweeper.close();
        running.forEach(LeaderElection::stop);
        coordinator.close(drainTimeout);
        if (valkey != null) {
            valkey.close();
        }
        database.close();
    }

    /** Configuration of a {@link Tenure}. Not thread-safe; build once. */
    public static final class Builder {
        private @Nullable DataSource dataSource;
        private boolean inMemory;
        private String schema = "tenure";
        private boolean migrate = true;
        private @Nullable ValkeyConfig valkeyConfig;
        private JobCoordinator.@Nullable Mode mode;
        private LeaseOptions defaults = LeaseOptions.ofDefaults();
        private Ticker ticker = Ticker.system();
        private @Nullable Object meterRegistry;
        private @Nullable Object observationRegistry;
        private @Nullable Object observationConvention;
        private DatabaseConfig databaseConfig = DatabaseConfig.defaults();
        private @Nullable Duration leaseCallTimeout; // null: the Leases default, and so on
        private @Nullable Integer maxLocalHandOffs;
        private @Nullable Duration maxTurn;
        private int breakerFailures = DEFAULT_BREAKER_FAILURES;
        private Duration breakerOpenFor = DEFAULT_BREAKER_OPEN_FOR;
        private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;
        private Duration retireSchedulesAfter = DEFAULT_RETIRE_SCHEDULES_AFTER;
        private String application = Sweeper.DEFAULT_APPLICATION;
        private Clock clock = Clock.systemUTC();
        private boolean valkeyRequired;
        private Duration drainTimeout = JobCoordinator.DEFAULT_DRAIN_TIMEOUT;
        private @Nullable String nodeName;

        private Builder() {}

        /**
         * The name of this node as people read it. It is recorded on every run and election term next to the owner id,
         * and shown by the console, the CLI and the actuator endpoint. The default is {@link NodeName#defaultName()},
         * {@code <host>/<pid>}, and the Spring Boot starter adds {@code spring.application.name}. Fencing never reads
         * it: two nodes may share a name, but then people cannot tell them apart.
         *
         * @throws IllegalArgumentException if blank, longer than {@value NodeName#MAX_LENGTH} characters or with control
         *                                  characters
         */
        public Builder nodeName(String name) {
            this.nodeName = NodeName.check(name);
            return this;
        }

        /** The Postgres database that holds Tenure's tables (and, for exactly-once effects, the business tables). */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** In memory instead of a database: see {@link Tenure#inMemory()}. */
        public Builder inMemory() {
            this.inMemory = true;
            return this;
        }

        /** The schema of Tenure's tables (default {@code tenure}). */
        public Builder schema(String schema) {
            this.schema = Objects.requireNonNull(schema, "schema");
            return this;
        }

        /** Whether {@link #build()} migrates Tenure's schema (default true; Flyway, own history table). */
        public Builder migrateSchema(boolean migrate) {
            this.migrate = migrate;
            return this;
        }

        /** Valkey in front of the database (module {@code tenure-valkey}); leave it out for the database mode. */
        public Builder valkey(ValkeyConfig config) {
            this.valkeyConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /**
         * With Valkey, the default {@link JobCoordinator.Mode#VALKEY_WITH_DATABASE_FALLBACK}, or
         * {@link JobCoordinator.Mode#VALKEY}, which refuses runs while Valkey is unreachable. Without Valkey the mode is
         * {@link JobCoordinator.Mode#DATABASE}, whatever is set here.
         */
        public Builder mode(JobCoordinator.Mode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        /**
         * The lease engine's bound on waiting for any single store call, Valkey's or the database's (default 5 s, see
         * {@link Leases.Builder#callTimeout}).
         */
        public Builder leaseCallTimeout(Duration timeout) {
            Leases.Builder.checkCallTimeout(timeout);
            this.leaseCallTimeout = timeout;
            return this;
        }

        /**
         * Hand-offs of a released lease to a waiting thread of this process in a row before waiters elsewhere get a
         * turn (default 64, see {@link Leases.Builder#maxLocalHandOffs}).
         */
        public Builder maxLocalHandOffs(int max) {
            Leases.Builder.checkMaxLocalHandOffs(max);
            this.maxLocalHandOffs = max;
            return this;
        }

        /**
         * How long this process may keep handing a key between its threads while other processes wait for it (default
         * 100 ms, see {@link Leases.Builder#maxTurn}).
         */
        public Builder maxTurn(Duration max) {
            Leases.Builder.checkMaxTurn(max);
            this.maxTurn = max;
            return this;
        }

        /**
         * How Tenure uses the database: lock waits, statement timeout, the store's threads and queue, LISTEN (default
         * {@link DatabaseConfig#defaults()}).
         */
        public Builder database(DatabaseConfig config) {
            this.databaseConfig = Objects.requireNonNull(config, "config");
            return this;
        }

        /** Lease TTL and renewal of every lease, run and election (default {@link LeaseOptions#ofDefaults()}: 30 s). */
        public Builder leaseDefaults(LeaseOptions options) {
            this.defaults = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * The Valkey fallback breaker of the coordinator and of every election: open after {@code failures} in a row,
         * for {@code openFor} (default {@link #DEFAULT_BREAKER_FAILURES}, {@link #DEFAULT_BREAKER_OPEN_FOR}).
         */
        public Builder fallbackBreaker(int failures, Duration openFor) {
            CircuitBreaker.check(failures, openFor);
            this.breakerFailures = failures;
            this.breakerOpenFor = openFor;
            return this;
        }

        /**
         * How often the sweeper looks for missed fires of the {@linkplain Tenure#register registered jobs} (default
         * 5 s). A sweep costs three statements, whatever the number of jobs.
         */
        public Builder sweepInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.toMillis() < 10) {
                throw new IllegalArgumentException("sweepInterval must be at least 10 ms (got " + interval + ")");
            }
            this.sweepInterval = interval;
            return this;
        }

        /**
         * The application this process belongs to (default {@code default}; the Spring Boot starter uses
         * {@code spring.application.name}). Schedules are recorded with it, and the processes of one application elect
         * one sweeper that accounts for every schedule of the application in the ledger, including jobs that only some
         * of its processes register (another version in a rolling deploy, another role): their catch-ups go to a process
         * that has the job. Applications that share a schema sweep apart.
         *
         * @throws IllegalArgumentException if it is not a valid key (non-empty, at most 100 characters, no whitespace
         *                                  or braces)
         */
        public Builder application(String name) {
            dev.tenure.spi.LeaseKeys.validate(name);
            if (name.length() > 100) {
                throw new IllegalArgumentException("application name '" + name.substring(0, 32) + "...' is "
                        + name.length() + " characters long; the limit is 100");
            }
            this.application = name;
            return this;
        }

        /**
         * How long a schedule stays in the sweeps and health checks after the last live process that registered it
         * stopped (default 1 day). Then it is retired: a removed job stops alarming. A process that registers it again
         * makes it active again, with the retired span recorded (its fires were not due). Processes mark their
         * registrations alive once a minute (or every quarter of this, if shorter).
         *
         * @throws IllegalArgumentException if under 1 second
         */
        public Builder retireSchedulesAfter(Duration after) {
            Objects.requireNonNull(after, "after");
            if (after.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("retireSchedulesAfter must be at least 1 s (got " + after + ")");
            }
            this.retireSchedulesAfter = after;
            return this;
        }

        /**
         * This node's wall clock (default UTC system clock). The database's clock decides what is due and overdue; this
         * one is only compared with it, and a node more than half a grace period off gets a warning.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Whether {@link #build()} fails when Valkey refuses Tenure (a wrong password) or cannot be reached (default
         * false: Tenure starts, says so in a WARN repeated at most once a minute, and runs go to the database alone in
         * the default mode). Ignored without {@link #valkey}.
         */
        public Builder requireValkey(boolean required) {
            this.valkeyRequired = required;
            return this;
        }

        /**
         * How long {@link Tenure#close()} waits for coordinated runs in progress before it abandons them (ABANDONED,
         * reason shutdown) and releases their leases (default 10 s; zero abandons them at once). The Spring Boot starter
         * uses the shutdown phase timeout instead.
         *
         * @throws IllegalArgumentException if negative
         */
        public Builder drainTimeout(Duration timeout) {
            this.drainTimeout = JobCoordinator.checkDrain(timeout);
            return this;
        }

        /** The monotonic clock for deadlines (default the system's; a settable one in tests). */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * Publishes the lease, run and fallback meters ({@code tenure.lease.*}, {@code tenure.run.unfenced},
         * {@code tenure.fence.rejected}, {@code tenure.fire.*}, {@code tenure.fallback.*}) to a Micrometer
         * {@code MeterRegistry} (micrometer-core is optional).
         *
         * @throws IllegalArgumentException if {@code registry} is not an {@code io.micrometer.core.instrument.MeterRegistry}
         */
        public Builder meterRegistry(Object registry) {
            this.meterRegistry = MeterBinding.check(registry);
            return this;
        }

        /**
         * Observes every coordinated run with Micrometer: {@code tenure.run} with its claim, work and completion
         * ({@link dev.tenure.observation.TenureRunObservationDocumentation}), each a child of the observation current on
         * the thread that begins the run. A registry with a tracing handler turns them into spans, and the run's trace
         * id is kept on its row (by the statement that starts the run). Default none: no observation, no cost.
         *
         * @throws IllegalArgumentException if {@code registry} is not an {@code io.micrometer.observation.ObservationRegistry}
         */
        public Builder observationRegistry(Object registry) {
            this.observationRegistry = ObservedRuns.checkRegistry(registry);
            return this;
        }

        /**
         * The names and key values of the runs' observations, instead of
         * {@link dev.tenure.observation.DefaultTenureRunObservationConvention}. Without it, a global convention
         * registered on the registry that supports the context is used before the default.
         *
         * @throws IllegalArgumentException if it is not a {@code dev.tenure.observation.TenureRunObservationConvention}
         */
        public Builder observationConvention(Object convention) {
            this.observationConvention = ObservedRuns.checkConvention(convention);
            return this;
        }

        /**
         * Builds it: migrates the schema (unless told not to), opens the database store and, if configured, the Valkey
         * store, and asks Valkey once whether it answers (bounded by its timeouts). Logs {@link Tenure#summary()} at
         * INFO, and a WARN if Valkey does not answer.
         *
         * @throws IllegalStateException          if no data source was given, or a store module is missing
         * @throws ValkeyUnavailableException     if Valkey does not answer and {@link #requireValkey} is set
         * @throws LeaseStoreUnavailableException if the database cannot be reached or migrated
         */
        public Tenure build() {
            Settings settings = settings();
            if (inMemory) {
                if (dataSource != null || valkeyConfig != null) {
                    throw new IllegalStateException(
                            "inMemory() takes no dataSource and no valkey: it is for " + "single-process tests");
                }
                InMemoryLeaseStore store = new InMemoryLeaseStore(ticker);
                InMemoryRunLedger runs = new InMemoryRunLedger(store, clock);
                return new Tenure(this, settings, store, runs, new InMemoryScheduleLedger(runs), null).started(false);
            }
            if (dataSource == null) {
                throw new IllegalStateException("Tenure needs a dataSource (the Postgres database of its epochs and "
                        + "run records), or inMemory() for single-process tests");
            }
            DatabaseBackend.Stores db =
                    Backends.database().open(dataSource, schema, migrate, settings.nodeName(), databaseConfig);
            LeaseStore valkeyStore = null;
            Tenure tenure;
            try {
                valkeyStore = valkeyConfig == null ? null : Backends.valkey().open(valkeyConfig);
                tenure = new Tenure(this, settings, db.leaseStore(), db.runLedger(), db.scheduleLedger(), valkeyStore);
            } catch (RuntimeException | Error e) {
                closeQuietly(valkeyStore, e);
                closeQuietly(db.leaseStore(), e);
                throw e;
            }
            return tenure.started(valkeyRequired);
        }

        /** The knobs as set so far, fixed: what the coordinator, the elections and the sweeper read. */
        Settings settings() {
            return new Settings(
                    nodeName == null ? NodeName.defaultName() : nodeName,
                    application,
                    mode,
                    defaults,
                    ticker,
                    clock,
                    breakerFailures,
                    breakerOpenFor,
                    sweepInterval,
                    retireSchedulesAfter,
                    drainTimeout,
                    leaseCallTimeout,
                    maxLocalHandOffs,
                    maxTurn,
                    observationRegistry,
                    observationConvention);
        }

        private static void closeQuietly(@Nullable LeaseStore store, Throwable failure) {
            if (store == null) {
                return;
            }
            try {
                store.close();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
    }
}
