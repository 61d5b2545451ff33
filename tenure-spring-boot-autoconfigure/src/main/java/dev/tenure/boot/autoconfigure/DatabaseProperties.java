package dev.tenure.boot.autoconfigure;

import static dev.tenure.boot.TenureConfigurationException.property;

import dev.tenure.DatabaseConfig;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * tenure.database.*: how Tenure uses its Postgres database ({@link DatabaseConfig}); unset values keep its defaults.
 *
 * @param claimLockTimeout how long a claim waits for the row lock of an open fenced transaction (default 2s)
 * @param renewLockTimeout how long a renewal waits for a row lock before it is retried (default 250ms)
 * @param queryTimeout     client-side backstop per statement, whole seconds; 0 for none (default 5s)
 * @param threads          threads that run Tenure's database calls, 1 to 64 (default 4)
 * @param maxQueued        calls that may wait for one of them before new ones fail at once (default 1024)
 * @param callTimeout      bound on every database call, queueing included (default 4.5s)
 * @param listen           LISTEN for releases so waiters wake at once; false: they poll (default true)
 * @param claimStatementsInFlight claim statements a process runs at once; further claims go together in the next
 *                         (default 2)
 * @param maxClaimsPerStatement claims one statement carries at most, 1 to 1000; 1: each claim alone (default 16)
 */
public record DatabaseProperties(
        Duration claimLockTimeout,
        Duration renewLockTimeout,
        Duration queryTimeout,
        Integer threads,
        Integer maxQueued,
        Duration callTimeout,
        Boolean listen,
        Integer claimStatementsInFlight,
        Integer maxClaimsPerStatement) {

    public DatabaseProperties {
        toConfig(
                claimLockTimeout,
                renewLockTimeout,
                queryTimeout,
                threads,
                maxQueued,
                callTimeout,
                listen,
                claimStatementsInFlight,
                maxClaimsPerStatement);
    }

    /** These values over {@link DatabaseConfig}'s defaults. */
    public DatabaseConfig toConfig() {
        return toConfig(
                claimLockTimeout,
                renewLockTimeout,
                queryTimeout,
                threads,
                maxQueued,
                callTimeout,
                listen,
                claimStatementsInFlight,
                maxClaimsPerStatement);
    }

    private static DatabaseConfig toConfig(
            Duration claimLockTimeout,
            Duration renewLockTimeout,
            Duration queryTimeout,
            Integer threads,
            Integer maxQueued,
            Duration callTimeout,
            Boolean listen,
            Integer claimStatementsInFlight,
            Integer maxClaimsPerStatement) {
        DatabaseConfig.Builder b = DatabaseConfig.builder();
        set("claim-lock-timeout", claimLockTimeout, b::claimLockTimeout, "at least 1ms");
        set("renew-lock-timeout", renewLockTimeout, b::renewLockTimeout, "at least 1ms");
        set("query-timeout", queryTimeout, b::queryTimeout, "zero or more");
        set("threads", threads, b::threads, "1 to 64");
        set("max-queued", maxQueued, b::maxQueued, "1 or more");
        set("call-timeout", callTimeout, b::callTimeout, "at least 10ms");
        set("listen", listen, b::listen, "true or false");
        set("claim-statements-in-flight", claimStatementsInFlight, b::claimStatementsInFlight, "1 to 64");
        set("max-claims-per-statement", maxClaimsPerStatement, b::maxClaimsPerStatement, "1 to 1000");
        return b.build();
    }

    private static <T> void set(String name, T value, Consumer<T> setter, String rule) {
        if (value == null) {
            return;
        }
        try {
            setter.accept(value);
        } catch (IllegalArgumentException e) {
            throw property("tenure.database." + name, value, rule);
        }
    }
}
