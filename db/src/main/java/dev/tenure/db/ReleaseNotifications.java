package dev.tenure.db;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release notifications from Postgres: one dedicated connection that {@code LISTEN}s on the channels of the keys
 * someone here waits for, read by one daemon thread with {@code PGConnection.getNotifications(timeout)}. Releases
 * ({@link JdbcLeaseStore#releaseEpoch}, {@link JdbcLeaseStore#release}, {@link JdbcRunLedger#finishAndRelease}) {@code NOTIFY} on
 * the key's channel when they commit, but only if a listener has marked the channel in {@code release_listener} (this
 * class does, after its LISTEN, and refreshes the mark every 10 s): NOTIFY serialises all notifying commits of the
 * database on one lock, so releases nobody waits for skip it. Bound to one Tenure schema.
 *
 * <p>Best effort: a notification only makes a waiter look sooner; waiters poll anyway. When the connection breaks
 * (server restart, killed backend) the thread reconnects with back-off (100 ms doubling to 2 s), listens again and
 * wakes every subscriber once, since releases may have been missed meanwhile. Share one instance between the stores
 * of one database: it holds one connection of the pool for as long as it runs.
 *
 * <p>Thread-safe. Subscribers' callbacks run on the listening thread and must not block. {@link #close()} stops the
 * thread and closes the connection; idempotent.
 */
final class ReleaseNotifications implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReleaseNotifications.class);
    private static final int POLL_MILLIS = 100;
    private static final long MIN_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final DataSource dataSource;
    private final String schema;
    private final ListenerMarks marks;
    private final Map<String, List<Runnable>> subscribers = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean closed;
    private volatile boolean connected;
    private boolean started;
    // confined to the listening thread
    private final Set<String> listening = new HashSet<>();
    private @Nullable Connection connection;
    private long lastMarked;

    private ReleaseNotifications(DataSource dataSource, String schema) {
        this.dataSource = dataSource;
        this.schema = schema;
        this.marks = new ListenerMarks("\"" + schema + "\"", UUID.randomUUID().toString());
        this.thread = new Thread(this::loop, "tenure-db-listen");
        this.thread.setDaemon(true);
    }

    /** {@link #start(DataSource, String)} for schema {@value TenureSchema#DEFAULT_SCHEMA}. */
    static ReleaseNotifications start(DataSource dataSource) {
        return start(dataSource, TenureSchema.DEFAULT_SCHEMA);
    }

    /**
     * Listens for releases of jobs in {@code schema}, through a connection of {@code dataSource}, taken when the first
     * subscription arrives (so a store whose callers never wait never holds it) and kept until {@link #close()}.
     */
    static ReleaseNotifications start(DataSource dataSource, String schema) {
        return new ReleaseNotifications(
                Objects.requireNonNull(dataSource, "dataSource"), TenureSchema.checkName(schema));
    }

    /** The Tenure schema whose releases this listens to. */
    String schema() {
        return schema;
    }

    /**
     * Calls {@code onRelease} whenever a release of {@code jobKey} is notified, and after every reconnect. The
     * subscription takes effect within about 100 ms (releases before that only reach polling waiters). Closing the
     * handle ends it.
     */
    AutoCloseable subscribe(String jobKey, Runnable onRelease) {
        String channel = Channels.of(schema, LedgerArgs.key(jobKey));
        Objects.requireNonNull(onRelease, "onRelease");
        subscribers.computeIfAbsent(channel, c -> new CopyOnWriteArrayList<>()).add(onRelease);
        startOnce();
        return () -> subscribers.computeIfPresent(channel, (c, list) -> {
            list.remove(onRelease);
            return list.isEmpty() ? null : list;
        });
    }

    private synchronized void startOnce() {
        if (!started && !closed) {
            started = true;
            thread.start();
        }
    }

    /** Whether the listening connection is up (for health checks and tests). */
    boolean isConnected() {
        return connected;
    }

    private void loop() {
        long backoff = MIN_BACKOFF_NANOS;
        int failures = 0;
        boolean wasConnected = false;
        while (!closed) {
            try {
                Connection c = connection;
                if (c == null) {
                    c = open();
                    if (wasConnected) {
                        wakeAll(); // releases may have been missed while disconnected
                    }
                    wasConnected = true;
                    backoff = MIN_BACKOFF_NANOS;
                }
                syncChannels(c);
                PGNotification[] ns = c.unwrap(PGConnection.class).getNotifications(POLL_MILLIS);
                if (ns != null) {
                    for (PGNotification n : ns) {
                        deliver(n.getName());
                    }
                }
                refreshMarks(c);
                failures = 0;
            } catch (SQLException | RuntimeException e) {
                if (!closed) {
                    // the first failure after a good spell is worth a warning (a missing schema shows up here too)
                    if (failures++ == 0) {
                        LOG.warn(
                                "release notifications on schema '{}' interrupted ({}); waiters poll meanwhile, "
                                        + "reconnecting with back-off",
                                schema,
                                e.toString());
                    } else {
                        LOG.debug(
                                "release notifications: still failing ({}); next try in {} ms",
                                e.toString(),
                                TimeUnit.NANOSECONDS.toMillis(backoff));
                    }
                }
                drop();
                LockSupport.parkNanos(backoff);
                backoff = Math.min(MAX_BACKOFF_NANOS, backoff * 2);
            }
        }
        drop();
    }

    private Connection open() throws SQLException {
        Connection c = dataSource.getConnection();
        connection = c;
        c.setAutoCommit(true);
        listening.clear();
        marks.mark(c, listening); // drops marks a previous connection of ours may have left
        lastMarked = System.nanoTime();
        connected = true;
        return c;
    }

    private void syncChannels(Connection connection) throws SQLException {
        Set<String> wanted = subscribers.keySet();
        if (listening.equals(wanted)) {
            return;
        }
        try (Statement s = connection.createStatement()) {
            for (String ch : Set.copyOf(wanted)) {
                if (listening.add(ch)) {
                    s.execute("LISTEN \"" + ch + "\"");
                }
            }
            for (String ch : Set.copyOf(listening)) {
                if (!wanted.contains(ch)) {
                    s.execute("UNLISTEN \"" + ch + "\"");
                    listening.remove(ch);
                }
            }
        }
        marks.mark(connection, listening);
        lastMarked = System.nanoTime();
    }

    /** Refreshes the marks every 10 s, which also proves the connection alive. */
    private void refreshMarks(Connection connection) throws SQLException {
        if (System.nanoTime() - lastMarked > ListenerMarks.REFRESH_NANOS) {
            marks.refresh(connection, listening);
            lastMarked = System.nanoTime();
        }
    }

    private void deliver(String channel) {
        List<Runnable> list = subscribers.get(channel);
        if (list != null) {
            list.forEach(ReleaseNotifications::runQuietly);
        }
    }

    private void wakeAll() {
        subscribers.values().forEach(list -> list.forEach(ReleaseNotifications::runQuietly));
    }

    private static void runQuietly(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("a release subscriber threw", e);
        }
    }

    /**
     * Gives the connection back. A pooled connection must not keep listening (its next borrower would pile up
     * notifications it never reads): UNLISTEN first, and if that fails, have Hikari throw the connection away.
     */
    private void drop() {
        connected = false;
        listening.clear();
        Connection c = connection;
        connection = null;
        if (c == null) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("UNLISTEN *");
            marks.unmarkAll(c);
        } catch (SQLException | RuntimeException e) {
            if (dataSource instanceof HikariDataSource h) {
                h.evictConnection(c);
            }
        }
        try {
            c.close();
        } catch (SQLException | RuntimeException ignored) {
            // broken already
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (!started) {
                return;
            }
        }
        try {
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
