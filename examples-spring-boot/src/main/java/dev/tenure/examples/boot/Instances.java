package dev.tenure.examples.boot;

import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.PostgresDatabase;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Instances of {@link SettlementApplication}, each in its own JVM (this JVM's class path), on one database and one
 * Valkey server: as a deployment runs several copies of an application. Closing kills whatever still runs.
 */
public final class Instances implements AutoCloseable {

    private final PostgresDatabase database;
    private final ValkeyServer valkey;
    private final List<String> extra;
    private final Map<String, JvmProcess> running = new LinkedHashMap<>();

    /** @param extra more {@code --name=value} arguments for every instance */
    public Instances(PostgresDatabase database, ValkeyServer valkey, String... extra) {
        this.database = database;
        this.valkey = valkey;
        this.extra = List.of(extra);
    }

    /** Starts instance {@code name} and returns at once; {@link #awaitReady} waits for its READY line. */
    public JvmProcess start(String name) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.datasource.url=" + database.jdbcUrl(),
                "--tenure.valkey.addresses=" + valkey.address(),
                "--settlement.instance=" + name));
        if (database.username() != null) {
            args.add("--spring.datasource.username=" + database.username());
        }
        if (database.password() != null) {
            args.add("--spring.datasource.password=" + database.password());
        }
        args.addAll(extra);
        JvmProcess p = JvmProcess.start(
                List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), SettlementApplication.class.getName(), args);
        running.put(name, p);
        return p;
    }

    /** Waits for instance {@code name}'s READY line and returns it. */
    public String awaitReady(String name) {
        return running.get(name).awaitStdoutLine(l -> l.startsWith("READY "), Timing.scaled(Duration.ofSeconds(120)));
    }

    /** The process of instance {@code name}. */
    public JvmProcess get(String name) {
        return running.get(name);
    }

    /** Every instance started, by name. */
    public Map<String, JvmProcess> all() {
        return running;
    }

    @Override
    public void close() {
        running.values().forEach(JvmProcess::close);
    }
}
