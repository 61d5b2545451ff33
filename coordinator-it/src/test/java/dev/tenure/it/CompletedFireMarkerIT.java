package dev.tenure.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.JobCoordinator;
import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.RunOutcome;
import dev.tenure.RunPolicy;
import dev.tenure.Tenure;
import dev.tenure.ValkeyConfig;
import dev.tenure.ValkeyConfig.ScriptMode;
import dev.tenure.integration.RunClaim;
import dev.tenure.metrics.MetricNames;
import dev.tenure.testkit.Timing;
import dev.tenure.valkey.ValkeyFunctions;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Valkey filter filters late arrivals too (issue 23, item 2): after a run completes its fire, its Valkey lease key
 * holds {@code d:<ledgerId>/<fireKey>} for one TTL, so another node that fires the same job and fire later learns that the fire is
 * done from Valkey in its one round trip, and touches Postgres not at all. Two nodes (two {@link Tenure}s, each with its
 * own clients and engines) on a real valkey-server and Postgres, in both script modes; the second node's
 * {@link DataSource} counts the connections and statements that the calling thread asks for.
 */
class CompletedFireMarkerIT {

    private static final Duration TTL = Duration.ofSeconds(5);

    private static CoordinatorServers servers;
    private static String ledgerId;

    @BeforeAll
    static void start() throws Exception {
        servers = new CoordinatorServers(CompletedFireMarkerIT.class);
        ledgerId = servers.one("SELECT id::text FROM tenure.tenure_ledger");
        ValkeyFunctions.install(
                ValkeyConfig.standalone(servers.valkey.address()).build());
    }

    @AfterAll
    static void stop() {
        servers.close();
    }

    private static Tenure node(ScriptMode script, DataSource ds, SimpleMeterRegistry registry) {
        Tenure.Builder b = Tenure.builder()
                .dataSource(ds)
                .migrateSchema(false)
                .leaseDefaults(LeaseOptions.ofTtl(TTL))
                .valkey(ValkeyConfig.standalone(servers.valkey.address())
                        .scriptMode(script)
                        .requestTimeout(Timing.scaled(Duration.ofSeconds(2)))
                        .build())
                .mode(JobCoordinator.Mode.VALKEY_WITH_DATABASE_FALLBACK);
        return (registry == null ? b : b.meterRegistry(registry)).build();
    }

    private static String leaseKey(String job) {
        return "{tenure:" + job + "}:lease";
    }

    /** The marker of a completed fire of the class's ledger (another ledger's is no marker of this fire). */
    private static String marker(String fireKey) {
        return "d:" + ledgerId + "/" + fireKey;
    }

    private static double doneAnswers(SimpleMeterRegistry registry) {
        var t = registry.find(MetricNames.ACQUIRE).tag("result", "done").timer();
        return t == null ? 0 : t.count();
    }

    @ParameterizedTest
    @EnumSource(ScriptMode.class)
    void afterCompletion_sameFire_doneFromValkey_noConnectionToPostgres(ScriptMode script) {
        String job = "after-" + script.name().toLowerCase();
        CountingDataSource counted = new CountingDataSource(servers.db.dataSource());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Tenure a = node(script, servers.db.dataSource(), null);
                Tenure b = node(script, counted.dataSource(), registry)) {
            assertThat(a.coordinator()
                            .run(job, "f1", RunPolicy.skipFire(), ctx -> null)
                            .status())
                    .isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(servers.valkey.command("GET", leaseKey(job))).isEqualTo(marker("f1"));
            assertThat((Long) servers.valkey.command("PTTL", leaseKey(job))).isBetween(1L, TTL.toMillis());

            counted.watch();
            RunOutcome<Object> late = b.coordinator().run(job, "f1", RunPolicy.skipFire(), ctx -> "ran again");
            List<String> calls = counted.stop();

            assertThat(late.status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
            assertThat(late.viaFallback()).isFalse();
            assertThat(calls).as("JDBC calls of the late node's run").isEmpty();
            assertThat(doneAnswers(registry))
                    .as("tenure.lease.acquire{result=done}")
                    .isEqualTo(1.0);
            assertThat(servers.valkey.command("GET", leaseKey(job)))
                    .as("the marker stays")
                    .isEqualTo(marker("f1"));
        }
    }

    /** The one-transaction run ({@code runInTransaction}) leaves the marker too, after its commit. */
    @ParameterizedTest
    @EnumSource(ScriptMode.class)
    void afterRunInTransaction_sameFire_doneFromValkey_noConnectionToPostgres(ScriptMode script) {
        String job = "tx-" + script.name().toLowerCase();
        CountingDataSource counted = new CountingDataSource(servers.db.dataSource());
        try (Tenure a = node(script, servers.db.dataSource(), null);
                Tenure b = node(script, counted.dataSource(), null)) {
            assertThat(a.coordinator()
                            .runInTransaction(
                                    job, "f1", RunPolicy.skipFire(), servers.db.dataSource(), (ctx, c) -> null)
                            .status())
                    .isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(servers.valkey.command("GET", leaseKey(job))).isEqualTo(marker("f1"));

            counted.watch();
            RunOutcome<Object> late = b.coordinator()
                    .runInTransaction(job, "f1", RunPolicy.skipFire(), counted.dataSource(), (ctx, c) -> "ran again");
            assertThat(counted.stop()).as("JDBC calls of the late node's run").isEmpty();
            assertThat(late.status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
        }
    }

    @ParameterizedTest
    @EnumSource(ScriptMode.class)
    void whileRunning_sameFire_heldInValkey_thenDone_aWaiterIsToldDone_noConnectionToPostgres(ScriptMode script)
            throws Exception {
        String job = "running-" + script.name().toLowerCase();
        CountingDataSource counted = new CountingDataSource(servers.db.dataSource());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Tenure a = node(script, servers.db.dataSource(), null);
                Tenure b = node(script, counted.dataSource(), null)) {
            RunClaim.Claimed claimed = (RunClaim.Claimed) a.coordinator().begin(job, "f1", RunPolicy.skipFire());

            counted.watch();
            RunOutcome<Object> during = b.coordinator().run(job, "f1", RunPolicy.skipFire(), ctx -> "ran twice");
            assertThat(counted.stop())
                    .as("JDBC calls of a run while the fire runs elsewhere")
                    .isEmpty();
            assertThat(during.status()).isEqualTo(RunOutcome.Status.SKIPPED_HELD_ELSEWHERE);

            // a node that waits for the job: woken by the completion, told by Valkey that its fire is done
            Future<Object[]> waiter = pool.submit(() -> {
                counted.watch();
                RunOutcome<Object> o = b.coordinator()
                        .run(job, "f1", RunPolicy.waitUpTo(Timing.scaled(Duration.ofSeconds(20))), ctx -> "ran twice");
                return new Object[] {o, counted.stop()};
            });
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() ->
                            Long.valueOf(1L).equals(servers.valkey.command("EXISTS", "{tenure:" + job + "}:waiting")));
            long finishedAt = System.nanoTime();
            assertThat(claimed.run().finish(null, null).status()).isEqualTo(RunOutcome.Status.EXECUTED);
            Object[] waited = waiter.get(Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - finishedAt);
            System.out.printf(
                    "%s: the waiting node was told the fire is done %d ms after the holder finished%n", script, tookMs);
            assertThat(((RunOutcome<?>) waited[0]).status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
            assertThat((List<?>) waited[1])
                    .as("JDBC calls of the waiting node's run")
                    .isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A thread of the holder's own process that waits for the same fire is not handed the lease of the completed fire
     * (which would send it to Postgres): it is woken, asks Valkey and is told that the fire is done.
     */
    @ParameterizedTest
    @EnumSource(ScriptMode.class)
    void waiterInTheHoldersProcess_sameFire_isToldDone_noConnectionToPostgres(ScriptMode script) throws Exception {
        String job = "local-" + script.name().toLowerCase();
        CountingDataSource counted = new CountingDataSource(servers.db.dataSource());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (Tenure a = node(script, counted.dataSource(), null)) {
            RunClaim.Claimed claimed = (RunClaim.Claimed) a.coordinator().begin(job, "f1", RunPolicy.skipFire());
            Future<Object[]> waiter = pool.submit(() -> {
                counted.watch();
                RunOutcome<Object> o = a.coordinator()
                        .run(job, "f1", RunPolicy.waitUpTo(Timing.scaled(Duration.ofSeconds(20))), ctx -> "ran twice");
                return new Object[] {o, counted.stop()};
            });
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() ->
                            Long.valueOf(1L).equals(servers.valkey.command("EXISTS", "{tenure:" + job + "}:waiting")));
            assertThat(claimed.run().finish(null, null).status()).isEqualTo(RunOutcome.Status.EXECUTED);
            Object[] waited = waiter.get(Timing.scaledMillis(20_000), TimeUnit.MILLISECONDS);
            assertThat(((RunOutcome<?>) waited[0]).status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
            assertThat((List<?>) waited[1])
                    .as("JDBC calls of the waiting thread's run")
                    .isEmpty();
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A marker answers only for its own fire: a new fire acquires and runs as before, and replaces it; a catch-up of an
     * older fire asks Postgres, which answers done, and that answer leaves the marker of the older fire.
     */
    @ParameterizedTest
    @EnumSource(ScriptMode.class)
    void differentFire_acquiresThroughTheMarker_andTheDatabaseDecides(ScriptMode script) {
        String job = "next-" + script.name().toLowerCase();
        CountingDataSource counted = new CountingDataSource(servers.db.dataSource());
        try (Tenure a = node(script, servers.db.dataSource(), null);
                Tenure b = node(script, counted.dataSource(), null)) {
            assertThat(a.coordinator()
                            .run(job, "f1", RunPolicy.skipFire(), ctx -> null)
                            .status())
                    .isEqualTo(RunOutcome.Status.EXECUTED);

            counted.watch();
            RunOutcome<Object> next = b.coordinator().run(job, "f2", RunPolicy.skipFire(), ctx -> "f2");
            assertThat(counted.stop()).as("JDBC calls of a new fire's run").isNotEmpty();
            assertThat(next.status()).isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(servers.valkey.command("GET", leaseKey(job))).isEqualTo(marker("f2"));

            counted.watch();
            RunOutcome<Object> older = b.coordinator().run(job, "f1", RunPolicy.skipFire(), ctx -> "f1 again");
            assertThat(counted.stop()).as("JDBC calls of the older fire's run").isNotEmpty();
            assertThat(older.status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
            assertThat(servers.valkey.command("GET", leaseKey(job)))
                    .as("left by the database's answer")
                    .isEqualTo(marker("f1"));

            // a run that reports the earlier run asks Postgres for it (the marker knows no epoch)
            RunOutcome<Object> reported =
                    b.coordinator().run(job, "f1", RunPolicy.returnEarlierOutcome(), ctx -> "again");
            assertThat(reported.status()).isEqualTo(RunOutcome.Status.SKIPPED_ALREADY_DONE);
            assertThat(reported.epoch()).isPositive();
        }
    }

    /** Only a COMPLETED fire leaves a marker: a failed run frees the key, and the next node runs the fire. */
    @ParameterizedTest
    @EnumSource(ScriptMode.class)
    void failedRun_leavesNoMarker_theFireRunsAgain(ScriptMode script) {
        String job = "failed-" + script.name().toLowerCase();
        try (Tenure a = node(script, servers.db.dataSource(), null);
                Tenure b = node(script, servers.db.dataSource(), null)) {
            RunOutcome<Object> failed = a.coordinator().run(job, "f1", RunPolicy.skipFire(), ctx -> {
                throw new IllegalStateException("boom");
            });
            assertThat(failed.status()).isEqualTo(RunOutcome.Status.FAILED);
            assertThat(servers.valkey.command("EXISTS", leaseKey(job))).isEqualTo(0L);
            assertThat(b.coordinator()
                            .run(job, "f1", RunPolicy.skipFire(), ctx -> null)
                            .status())
                    .isEqualTo(RunOutcome.Status.EXECUTED);
        }
    }

    /** A plain lock (no fire) takes a key that holds a marker as a free key. */
    @ParameterizedTest
    @EnumSource(ScriptMode.class)
    void plainLock_onAKeyWithAMarker_isGranted(ScriptMode script) {
        String job = "plain-" + script.name().toLowerCase();
        try (Tenure a = node(script, servers.db.dataSource(), null)) {
            assertThat(a.coordinator()
                            .run(job, "f1", RunPolicy.skipFire(), ctx -> null)
                            .status())
                    .isEqualTo(RunOutcome.Status.EXECUTED);
            assertThat(servers.valkey.command("GET", leaseKey(job))).isEqualTo(marker("f1"));
            Optional<Lease> lock = a.leases().acquire(job, Duration.ZERO, TTL);
            assertThat(lock).isPresent();
            assertThat(servers.valkey.command("GET", leaseKey(job)))
                    .isEqualTo(lock.get().owner());
            lock.get().release();
            assertThat(servers.valkey.command("EXISTS", leaseKey(job))).isEqualTo(0L);
        }
    }

    /**
     * A DataSource that records, while a thread watches, every connection that thread takes and every statement it
     * prepares or creates on any connection of this DataSource. Other threads (the sweeper, the watchdog) are not
     * counted.
     */
    static final class CountingDataSource implements InvocationHandler {

        private final DataSource target;
        private final DataSource proxy;
        private final ThreadLocal<List<String>> calls = new ThreadLocal<>();

        CountingDataSource(DataSource target) {
            this.target = target;
            this.proxy = (DataSource)
                    Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DataSource.class}, this);
        }

        DataSource dataSource() {
            return proxy;
        }

        void watch() {
            calls.set(new java.util.concurrent.CopyOnWriteArrayList<>());
        }

        List<String> stop() {
            List<String> seen = calls.get();
            calls.remove();
            return List.copyOf(seen);
        }

        private void record(String what) {
            List<String> seen = calls.get();
            if (seen != null) {
                seen.add(what);
            }
        }

        @Override
        public Object invoke(Object p, java.lang.reflect.Method m, Object[] args) throws Throwable {
            Object r = call(target, m, args);
            if (m.getName().equals("getConnection")) {
                record("getConnection");
                Connection c = (Connection) r;
                return Proxy.newProxyInstance(
                        getClass().getClassLoader(), new Class<?>[] {Connection.class}, (cp, cm, ca) -> {
                            if (cm.getName().startsWith("prepare")
                                    || cm.getName().equals("createStatement")) {
                                record(cm.getName() + (ca != null && ca.length > 0 ? ": " + ca[0] : ""));
                            }
                            return call(c, cm, ca);
                        });
            }
            return r;
        }

        private static Object call(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
