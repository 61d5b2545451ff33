package dev.tenure;

import java.time.Duration;
import java.util.Objects;

/**
 * How Tenure uses its Postgres database, beside {@link ValkeyConfig}: the lock waits, the statement backstop and the
 * threads of the database store. Where the tables are (the data source, the schema, whether to migrate it) is set on
 * {@link Tenure.Builder}. Immutable; {@link #defaults()} or {@link #builder()}.
 *
 * <table>
 * <caption>Knobs</caption>
 * <tr><th>knob</th><th>default</th><th>meaning</th></tr>
 * <tr><td>claimLockTimeout</td><td>2 s</td><td>how long a claim waits for the row lock of an open fenced
 *     transaction; then it ends that transaction if the lease has expired and it sits idle (its holder is frozen),
 *     or reports the job held. Finishing a run waits as long</td></tr>
 * <tr><td>renewLockTimeout</td><td>250 ms</td><td>how long a renewal waits for a row lock (its own holder's fenced
 *     transaction) before it fails, to be retried: keeps the watchdog from stalling</td></tr>
 * <tr><td>queryTimeout</td><td>5 s</td><td>client-side backstop per statement, for data sources without a
 *     server-side {@code statement_timeout} (rounded up to whole seconds; zero: none)</td></tr>
 * <tr><td>threads</td><td>4</td><td>threads that run the store's JDBC calls (1 to 64; more than the pool has
 *     connections does not help)</td></tr>
 * <tr><td>maxQueued</td><td>1024</td><td>calls that may wait for one of those threads; beyond, calls fail at
 *     once</td></tr>
 * <tr><td>callTimeout</td><td>4.5 s</td><td>bound on every store call, queueing included: above the pool's
 *     connection timeout plus a claim's lock wait, below the lease engine's 5 s</td></tr>
 * <tr><td>listen</td><td>true</td><td>LISTEN for releases on one connection, so waiters wake at once; without,
 *     they poll</td></tr>
 * <tr><td>claimStatementsInFlight</td><td>2</td><td>claim statements one process runs at once; a claim made while
 *     that many run waits for one of them to return and then goes with the claims queued behind it, in one
 *     statement (1 to 64)</td></tr>
 * <tr><td>maxClaimsPerStatement</td><td>16</td><td>claims of different jobs one statement carries at most (1 to
 *     1000; 1: every claim a statement of its own)</td></tr>
 * </table>
 */
public final class DatabaseConfig {

    /** Default {@link Builder#claimLockTimeout}. */
    public static final Duration DEFAULT_CLAIM_LOCK_TIMEOUT = Duration.ofSeconds(2);
    /** Default {@link Builder#renewLockTimeout}. */
    public static final Duration DEFAULT_RENEW_LOCK_TIMEOUT = Duration.ofMillis(250);
    /** Default {@link Builder#queryTimeout}. */
    public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(5);
    /** Default {@link Builder#threads}. */
    public static final int DEFAULT_THREADS = 4;
    /** Default {@link Builder#maxQueued}. */
    public static final int DEFAULT_MAX_QUEUED = 1024;
    /** Default {@link Builder#callTimeout}. */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofMillis(4500);
    /** Default {@link Builder#claimStatementsInFlight}. */
    public static final int DEFAULT_CLAIM_STATEMENTS_IN_FLIGHT = 2;
    /** Default {@link Builder#maxClaimsPerStatement}. */
    public static final int DEFAULT_MAX_CLAIMS_PER_STATEMENT = 16;

    private static final DatabaseConfig DEFAULTS = builder().build();

    private final Duration claimLockTimeout;
    private final Duration renewLockTimeout;
    private final Duration queryTimeout;
    private final int threads;
    private final int maxQueued;
    private final Duration callTimeout;
    private final boolean listen;
    private final int claimStatementsInFlight;
    private final int maxClaimsPerStatement;

    private DatabaseConfig(Builder b) {
        this.claimLockTimeout = b.claimLockTimeout;
        this.renewLockTimeout = b.renewLockTimeout;
        this.queryTimeout = b.queryTimeout;
        this.threads = b.threads;
        this.maxQueued = b.maxQueued;
        this.callTimeout = b.callTimeout;
        this.listen = b.listen;
        this.claimStatementsInFlight = b.claimStatementsInFlight;
        this.maxClaimsPerStatement = b.maxClaimsPerStatement;
    }

    /** Every knob at its default. */
    public static DatabaseConfig defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Duration claimLockTimeout() {
        return claimLockTimeout;
    }

    public Duration renewLockTimeout() {
        return renewLockTimeout;
    }

    public Duration queryTimeout() {
        return queryTimeout;
    }

    public int threads() {
        return threads;
    }

    public int maxQueued() {
        return maxQueued;
    }

    public Duration callTimeout() {
        return callTimeout;
    }

    public boolean listen() {
        return listen;
    }

    public int claimStatementsInFlight() {
        return claimStatementsInFlight;
    }

    public int maxClaimsPerStatement() {
        return maxClaimsPerStatement;
    }

    @Override
    public String toString() {
        return "DatabaseConfig{claimLockTimeout=" + claimLockTimeout + ", renewLockTimeout=" + renewLockTimeout
                + ", queryTimeout=" + queryTimeout + ", threads=" + threads + ", maxQueued=" + maxQueued
                + ", callTimeout=" + callTimeout + ", listen=" + listen + ", claimStatementsInFlight="
                + claimStatementsInFlight + ", maxClaimsPerStatement=" + maxClaimsPerStatement + "}";
    }

    /** Not thread-safe; build once. Each setter checks its value and names the knob when it refuses one. */
    public static final class Builder {
        private Duration claimLockTimeout = DEFAULT_CLAIM_LOCK_TIMEOUT;
        private Duration renewLockTimeout = DEFAULT_RENEW_LOCK_TIMEOUT;
        private Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
        private int threads = DEFAULT_THREADS;
        private int maxQueued = DEFAULT_MAX_QUEUED;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
        private boolean listen = true;
        private int claimStatementsInFlight = DEFAULT_CLAIM_STATEMENTS_IN_FLIGHT;
        private int maxClaimsPerStatement = DEFAULT_MAX_CLAIMS_PER_STATEMENT;

        private Builder() {}

        /** At least 1 ms. */
        public Builder claimLockTimeout(Duration timeout) {
            this.claimLockTimeout = atLeast(timeout, 1, "claimLockTimeout");
            return this;
        }

        /** At least 1 ms. */
        public Builder renewLockTimeout(Duration timeout) {
            this.renewLockTimeout = atLeast(timeout, 1, "renewLockTimeout");
            return this;
        }

        /** Zero or more; zero: no client-side timeout. */
        public Builder queryTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "queryTimeout");
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("queryTimeout must not be negative (got " + timeout + ")");
            }
            this.queryTimeout = timeout;
            return this;
        }

        /** 1 to 64. */
        public Builder threads(int threads) {
            if (threads < 1 || threads > 64) {
                throw new IllegalArgumentException("threads must be between 1 and 64 (got " + threads + ")");
            }
            this.threads = threads;
            return this;
        }

        /** At least 1. */
        public Builder maxQueued(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxQueued must be >= 1 (got " + max + ")");
            }
            this.maxQueued = max;
            return this;
        }

        /** At least 10 ms. */
        public Builder callTimeout(Duration timeout) {
            this.callTimeout = atLeast(timeout, 10, "callTimeout");
            return this;
        }

        public Builder listen(boolean on) {
            this.listen = on;
            return this;
        }

        /** 1 to 64. */
        public Builder claimStatementsInFlight(int statements) {
            if (statements < 1 || statements > 64) {
                throw new IllegalArgumentException(
                        "claimStatementsInFlight must be between 1 and 64 (got " + statements + ")");
            }
            this.claimStatementsInFlight = statements;
            return this;
        }

        /** 1 to 1000; 1: every claim a statement of its own. */
        public Builder maxClaimsPerStatement(int claims) {
            if (claims < 1 || claims > 1000) {
                throw new IllegalArgumentException(
                        "maxClaimsPerStatement must be between 1 and 1000 (got " + claims + ")");
            }
            this.maxClaimsPerStatement = claims;
            return this;
        }

        public DatabaseConfig build() {
            return new DatabaseConfig(this);
        }

        private static Duration atLeast(Duration d, long millis, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.toMillis() < millis) {
                throw new IllegalArgumentException(name + " must be at least " + millis + " ms (got " + d + ")");
            }
            return d;
        }
    }
}
