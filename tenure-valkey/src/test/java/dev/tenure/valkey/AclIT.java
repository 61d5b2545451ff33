package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.tenure.Lease;
import dev.tenure.LeaseGroup;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.LeaseStoreUnavailableException;
import dev.tenure.Leases;
import dev.tenure.LockPolicy;
import dev.tenure.ReleaseResult;
import dev.tenure.ValkeyConfig;
import dev.tenure.ValkeyConfig.ScriptMode;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyCluster;
import dev.tenure.testkit.ValkeyReplicationGroup;
import dev.tenure.testkit.ValkeyReplyException;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Tenure as a Valkey ACL user that may run only what Tenure needs, on only Tenure's keys and channels (acceptance 6).
 * The rules are the ones documented in {@code docs/acl.md}; keep both in step. Every feature must work under them
 * without a single denial in {@code ACL LOG}, and the same user must be refused everything else.
 *
 * <p>The servers run with {@code --requirepass}, so the kit's own commands authenticate as the default user (the
 * administrator here); the restricted user is created with {@code ACL SETUSER} on every node.
 */
class AclIT {

    static final String ADMIN_PASSWORD = "admin-secret";
    static final String USER = "tenure";
    static final String PASSWORD = "tenure-secret";

    /** docs/acl.md, standalone (with or without replicas). */
    static final String STANDALONE_RULES = "on >" + PASSWORD + " resetkeys ~{tenure:* resetchannels &{tenure:*"
            + " -@all +evalsha +script|load +info +role +client|setname +client|setinfo"
            + " +subscribe +unsubscribe +publish +set +get +del +pexpire +pttl +incr +mget +lpos +rpush +lrem +lpop +wait";
    /** docs/acl.md, cluster. */
    static final String CLUSTER_RULES = "on >" + PASSWORD + " resetkeys ~{tenure:* resetchannels &{tenure:*"
            + " -@all +evalsha +script|load +info +ping +cluster|slots +client|setname +client|setinfo"
            + " +ssubscribe +sunsubscribe +spublish +set +get +del +pexpire +pttl +incr +mget +lpos +rpush +lrem +lpop +wait";
    /** docs/acl.md, standalone, {@link ScriptMode#PRELOADED_FUNCTION}: {@code +fcall} instead of the two script permissions. */
    static final String STANDALONE_FUNCTION_RULES = STANDALONE_RULES.replace(" +evalsha +script|load ", " +fcall ");
    /** docs/acl.md, cluster, {@link ScriptMode#PRELOADED_FUNCTION}. */
    static final String CLUSTER_FUNCTION_RULES = CLUSTER_RULES.replace(" +evalsha +script|load ", " +fcall ");

    /** Every Tenure feature, as the restricted user; a variant supplies the servers. */
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    abstract static class Features {

        List<ValkeyServer> nodes;
        ValkeyLeaseStore store;
        Leases leases;
        /** Another client of the same user, as another process would have. */
        Leases elsewhere;

        /** Starts the servers with {@code --requirepass ADMIN_PASSWORD}; returns every node. */
        abstract List<ValkeyServer> startServers();

        abstract ValkeyConfig.Builder config();

        abstract String rules();

        /** How the store runs its script; the function mode variants override it (and {@link #rules()}). */
        ScriptMode scriptMode() {
            return ScriptMode.EVALSHA_LOAD_ON_MISS;
        }

        /** The node that serves {@code valkeyKey} (for the administrator's checks). */
        abstract ValkeyServer nodeFor(String valkeyKey);

        abstract List<ValkeyServer> primaries();

        abstract void stopServers();

        @BeforeAll
        void start() {
            nodes = startServers();
            nodes.forEach(node -> grant(node, rules()));
            installFunctionIfNeeded();
            store = ValkeyLeaseStore.create(userConfig());
            leases = Leases.of(store);
            elsewhere = Leases.of(ValkeyLeaseStore.create(userConfig()));
        }

        /**
         * This class proves permissions, not timing: a generous request timeout, so a first call to a fresh cluster on
         * a loaded machine (CI ran one acquire past the 500 ms default) does not read as a denial or an outage.
         */
        ValkeyConfig userConfig() {
            return config().credentials(USER, PASSWORD)
                    .scriptMode(scriptMode())
                    .requestTimeout(Timing.scaled(Duration.ofSeconds(2)))
                    .build();
        }

        /** In function mode, the administrator's step before Tenure's user can work. */
        void installFunctionIfNeeded() {
            if (scriptMode() == ScriptMode.PRELOADED_FUNCTION) {
                ValkeyFunctions.install(
                        config().credentials(null, ADMIN_PASSWORD).build());
            }
        }

        @AfterAll
        void stop() {
            if (leases != null) {
                leases.close();
            }
            if (elsewhere != null) {
                elsewhere.close();
            }
            stopServers();
        }

        @BeforeEach
        void clearAclLog() {
            nodes.forEach(node -> node.command("ACL", "LOG", "RESET"));
        }

        @Test
        void tryAcquire_withFencingToken_grantsIncreasingTokens() {
            LeaseOptions fenced = LeaseOptions.ofTtl(Duration.ofSeconds(2)).withFencingToken(true);
            Lease first = leases.tryAcquire("fenced", fenced).orElseThrow();
            assertThat(elsewhere.tryAcquire("fenced")).isEmpty();
            assertThat(first.release()).isEqualTo(ReleaseResult.RELEASED);
            Lease second = leases.tryAcquire("fenced", fenced).orElseThrow();

            assertThat(second.fencingToken().getAsLong())
                    .isGreaterThan(first.fencingToken().getAsLong());
            assertThat(admin("GET", store.fenceKeyOf("fenced")))
                    .isEqualTo(Long.toString(second.fencingToken().getAsLong()));
            assertThat(second.release()).isEqualTo(ReleaseResult.RELEASED);
            assertNoDenials();
        }

        @Test
        void renew_ttlTwoSecondsHeldThreeSeconds_staysActive() {
            Lease lease = leases.tryAcquire("renewed", LeaseOptions.ofTtl(Duration.ofSeconds(2)))
                    .orElseThrow();

            await().during(Duration.ofSeconds(3))
                    .atMost(Timing.scaled(Duration.ofSeconds(4)))
                    .until(lease::isValid);
            assertThat(lease.state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(admin("GET", store.leaseKeyOf("renewed"))).isEqualTo(lease.owner());
            assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED);
            assertThat(admin("EXISTS", store.leaseKeyOf("renewed"))).isEqualTo(0L);
            assertNoDenials();
        }

        /** The queue of waiting processes under the ACL, and (cluster) the pass announced on the shard of the key. */
        @Test
        void contendedRelease_passesTheTurnToTheQueuedProcess_andTellsItOnItsTurnChannel() throws Exception {
            Duration ttl = Duration.ofSeconds(5);
            CountDownLatch told = new CountDownLatch(1);
            try (AutoCloseable subscription = store.subscribeReleases("turned", "w.", told::countDown)) {
                await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> store.releasesReachUs("turned"));
                Lease holder = elsewhere.tryAcquire("turned").orElseThrow();
                assertThat(store.tryAcquire("turned", "w.1", ttl, false, "w.")
                                .get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                        .isInstanceOf(dev.tenure.spi.AcquireResult.Held.class);
                assertThat(admin("LRANGE", store.queueKeyOf("turned"), "0", "-1"))
                        .isEqualTo(List.of("w."));

                assertThat(holder.release()).isEqualTo(ReleaseResult.RELEASED);
                assertThat(told.await(Timing.scaledMillis(5_000), TimeUnit.MILLISECONDS))
                        .as("told on its turn channel")
                        .isTrue();
                assertThat(admin("GET", store.leaseKeyOf("turned"))).isEqualTo("q:w.");
                assertThat(store.tryAcquire("turned", "w.2", ttl, false, "w.")
                                .get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                        .isInstanceOf(dev.tenure.spi.AcquireResult.Acquired.class);
                assertThat(store.release("turned", "w.2").get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                        .isTrue();
            }
            assertNoDenials();
        }

        /** The marker of a completed fire: set by the release, answered "done" for its fire alone, taken by another fire. */
        @Test
        void completedFire_leavesAMarker_thatAnswersDoneForItsFireOnly() throws Exception {
            Duration ttl = Duration.ofSeconds(5);
            long bound = Timing.scaledMillis(5000);
            assertThat(store.tryAcquireFire("fired", "o.1", ttl, false, "f1", null)
                            .get(bound, TimeUnit.MILLISECONDS))
                    .isInstanceOf(dev.tenure.spi.AcquireResult.Acquired.class);
            assertThat(store.tryAcquire("fired", "w.1", ttl, false, "w.").get(bound, TimeUnit.MILLISECONDS))
                    .isInstanceOf(dev.tenure.spi.AcquireResult.Held.class); // someone waits: the release notifies
            assertThat(store.releaseCompleted("fired", "o.1", "f1", ttl).get(bound, TimeUnit.MILLISECONDS))
                    .isTrue();
            assertThat(admin("GET", store.leaseKeyOf("fired"))).isEqualTo("d:f1");

            assertThat(store.tryAcquireFire("fired", "o.2", ttl, false, "f1", "w.")
                            .get(bound, TimeUnit.MILLISECONDS))
                    .isInstanceOf(dev.tenure.spi.AcquireResult.AlreadyDone.class);
            assertThat(store.tryAcquireFire("fired", "o.3", ttl, true, "f2", null)
                            .get(bound, TimeUnit.MILLISECONDS))
                    .isInstanceOf(dev.tenure.spi.AcquireResult.Acquired.class);
            assertThat(store.release("fired", "o.3").get(bound, TimeUnit.MILLISECONDS))
                    .isTrue();
            store.leaveQueue("fired", "w.");
            assertNoDenials();
        }

        @Test
        void release_whileSomeoneWaits_notifiesSubscribedClient() throws Exception {
            CountDownLatch released = new CountDownLatch(1);
            try (AutoCloseable subscription = store.subscribeReleases("notified", released::countDown)) {
                await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                        .until(() -> subscribed(store.leaseKeyOf("notified")));
                Lease holder = elsewhere.tryAcquire("notified").orElseThrow();
                // A waiter's attempt: finding the lease held, it leaves the marker that makes the release notify.
                assertThat(leases.tryAcquire("notified")).isEmpty();

                assertThat(holder.release()).isEqualTo(ReleaseResult.RELEASED);
                assertThat(released.await(Timing.scaledMillis(5_000), TimeUnit.MILLISECONDS))
                        .as("notified")
                        .isTrue();
            }
            assertNoDenials();
        }

        @Test
        void acquire_heldByOtherClient_grantedAfterRelease() throws Exception {
            Lease holder = elsewhere.tryAcquire("waited-for").orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(
                    () -> leases.acquire("waited-for", Timing.scaled(Duration.ofSeconds(10)), leases.defaults()));
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> admin("EXISTS", "{tenure:waited-for}:waiting").equals(1L));

            assertThat(holder.release()).isEqualTo(ReleaseResult.RELEASED);
            Lease next = waiter.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS)
                    .orElseThrow();
            assertThat(admin("GET", store.leaseKeyOf("waited-for"))).isEqualTo(next.owner());
            assertThat(next.release()).isEqualTo(ReleaseResult.RELEASED);
            assertNoDenials();
        }

        @Test
        void acquire_heldByOtherThread_handedOverOnRelease() throws Exception {
            Lease holder = leases.tryAcquire("handed-over").orElseThrow();
            CompletableFuture<Optional<Lease>> waiter = CompletableFuture.supplyAsync(
                    () -> leases.acquire("handed-over", Timing.scaled(Duration.ofSeconds(10)), leases.defaults()));
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> admin("EXISTS", "{tenure:handed-over}:waiting").equals(1L));

            assertThat(holder.release()).isEqualTo(ReleaseResult.RELEASED);
            Lease next = waiter.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS)
                    .orElseThrow();
            await().atMost(Timing.scaled(Duration.ofSeconds(2)))
                    .until(() -> next.owner().equals(admin("GET", store.leaseKeyOf("handed-over"))));
            assertThat(next.isValid()).isTrue();
            assertThat(next.release()).isEqualTo(ReleaseResult.RELEASED);
            assertNoDenials();
        }

        @Test
        void acquireAll_oneKeyHeldElsewhere_takesAllOrNone() {
            List<String> keys = List.of("all-a", "all-b", "all-c");
            LeaseGroup group = leases.acquireAll(keys, Duration.ofSeconds(1), leases.defaults())
                    .orElseThrow();
            assertThat(group.leases()).hasSize(3).allMatch(Lease::isValid);
            assertThat(group.release()).isEqualTo(ReleaseResult.RELEASED);

            Lease blocker = elsewhere.tryAcquire("all-c").orElseThrow();
            assertThat(leases.acquireAll(keys, Duration.ofMillis(300), leases.defaults()))
                    .isEmpty();
            assertThat(blocker.release()).isEqualTo(ReleaseResult.RELEASED);
            keys.forEach(key ->
                    assertThat(admin("EXISTS", store.leaseKeyOf(key))).as(key).isEqualTo(0L));
            assertNoDenials();
        }

        @Test
        void runLocked_freeKey_runsWorkUnderLeaseAndReleases() {
            Optional<String> result = leases.runLocked(
                    "locked",
                    LockPolicy.failFast(),
                    lease -> lease.owner().equals(admin("GET", store.leaseKeyOf("locked"))) ? "held" : "not held");

            assertThat(result).contains("held");
            assertThat(admin("EXISTS", store.leaseKeyOf("locked"))).isEqualTo(0L);
            assertNoDenials();
        }

        @Test
        void restrictedUser_outsideItsKeysAndCommands_isRefused() throws Exception {
            Lease lease = leases.tryAcquire("survivor").orElseThrow();
            String outside = "billing:invoice-7";

            assertThat(asUser(nodeFor(store.leaseKeyOf("survivor")), "GET", store.leaseKeyOf("survivor")))
                    .as("the user's own keys stay readable")
                    .isEqualTo(lease.owner());
            assertRefused(asUser(nodeFor(outside), "SET", outside, "x"));
            assertRefused(asUser(nodeFor(outside), "GET", outside));
            assertRefused(asUser(nodeFor(store.leaseKeyOf("survivor")), "FLUSHALL"));
            assertRefused(asUser(nodes.get(0), "KEYS", "*"));
            assertRefused(asUser(nodes.get(0), "CONFIG", "GET", "requirepass"));
            assertRefused(asUser(nodeFor(outside), "EVAL", "return redis.call('set', KEYS[1], 'x')", "1", outside));
            assertRefused(asUser(nodes.get(0), "PUBLISH", "billing", "hello"));
            assertOwnLuaConfinedOrRefused(outside);

            assertThat(admin("EXISTS", outside)).isEqualTo(0L);
            assertThat(admin("GET", store.leaseKeyOf("survivor"))).isEqualTo(lease.owner());
            assertThat(denials()).isNotEmpty();
            assertThat(lease.release()).isEqualTo(ReleaseResult.RELEASED);
        }

        /**
         * EVALSHA mode: the user may load Lua of its own, which runs with its permissions (so it cannot reach other
         * keys, but could loop). Function mode: it can neither load nor run Lua of its own.
         */
        void assertOwnLuaConfinedOrRefused(String outside) throws Exception {
            String setOutside = "return redis.call('set', KEYS[1], 'x')";
            ValkeyServer node = nodeFor(outside);
            if (scriptMode() == ScriptMode.EVALSHA_LOAD_ON_MISS) {
                assertThat(asUser(node, "SCRIPT", "LOAD", setOutside)).isEqualTo(sha1(setOutside));
                assertRefused(asUser(node, "EVALSHA", sha1(setOutside), "1", outside));
                return;
            }
            String looping = "#!lua name=looping\nredis.register_function('looping', function() while true do end end)";
            assertRefused(asUser(node, "EVAL", "return 1", "0"));
            assertRefused(asUser(node, "EVALSHA", sha1(setOutside), "0"));
            assertRefused(asUser(node, "SCRIPT", "LOAD", setOutside));
            assertRefused(asUser(node, "FUNCTION", "LOAD", looping));
            assertRefused(asUser(node, "FCALL", ValkeyFunctions.name(), "1", outside));
        }

        /**
         * The administrator removes Tenure's script from every server. EVALSHA mode: Tenure loads it again by itself.
         * Function mode: a call fails at once, typed, naming the function and how to install it, with one call to the
         * server (no retry loop); once installed again, leases work.
         */
        @Test
        void tryAcquire_scriptRemovedFromServers_reloadsItOrNamesTheMissingFunction() throws Exception {
            boolean function = scriptMode() == ScriptMode.PRELOADED_FUNCTION;
            ValkeyServer node = nodeFor(store.leaseKeyOf("removed"));
            primaries().forEach(primary -> primary.command(function ? "FUNCTION" : "SCRIPT", "FLUSH"));
            node.command("CONFIG", "RESETSTAT");

            if (function) {
                assertThatThrownBy(() -> store.tryAcquire("removed", "owner-1", Duration.ofSeconds(5), false)
                                .get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .isInstanceOf(LeaseStoreUnavailableException.class)
                        .hasMessageContaining(ValkeyFunctions.name())
                        .hasMessageContaining("ValkeyFunctions.install")
                        .hasMessageContaining("FUNCTION LOAD REPLACE");
                assertThat((String) node.command("INFO", "commandstats"))
                        .as("one FCALL, no retries")
                        .contains("cmdstat_fcall:calls=1,");
                assertThatThrownBy(() -> leases.tryAcquire("removed"))
                        .isInstanceOf(LeaseStoreUnavailableException.class)
                        .hasMessageContaining(ValkeyFunctions.name())
                        .hasMessageContaining("ValkeyFunctions.install");
                installFunctionIfNeeded();
            }
            assertThat(leases.tryAcquire("removed").orElseThrow().release()).isEqualTo(ReleaseResult.RELEASED);
            assertNoDenials();
        }

        /** A command as the administrator (the default user) on the node serving the command's key, if any. */
        Object admin(String... command) {
            return (command.length > 1 ? nodeFor(command[1]) : nodes.get(0)).command(command);
        }

        boolean subscribed(String channel) {
            String pubsub = rules().contains("+ssubscribe") ? "SHARDNUMSUB" : "NUMSUB";
            List<?> reply = (List<?>) nodeFor(channel).command("PUBSUB", pubsub, channel);
            return (Long) reply.get(1) >= 1;
        }

        void assertNoDenials() {
            assertThat(denials()).as("ACL LOG").isEmpty();
        }

        List<String> denials() {
            List<String> all = new ArrayList<>();
            for (ValkeyServer node : nodes) {
                for (Object entry : (List<?>) node.command("ACL", "LOG")) {
                    all.add(node.address() + " " + entry);
                }
            }
            return all;
        }
    }

    @Nested
    class Standalone extends Features {

        private ValkeyServer server;

        @Override
        List<ValkeyServer> startServers() {
            server = ValkeyServers.standalone("--requirepass", ADMIN_PASSWORD);
            return List.of(server);
        }

        @Override
        ValkeyConfig.Builder config() {
            return ValkeyConfig.standalone(server.address());
        }

        @Override
        String rules() {
            return STANDALONE_RULES;
        }

        @Override
        ValkeyServer nodeFor(String valkeyKey) {
            return server;
        }

        @Override
        List<ValkeyServer> primaries() {
            return List.of(server);
        }

        @Override
        void stopServers() {
            if (server != null) {
                server.close();
            }
        }
    }

    @Nested
    class Cluster extends Features {

        private ValkeyCluster cluster;

        @Override
        List<ValkeyServer> startServers() {
            cluster = ValkeyServers.cluster("--requirepass", ADMIN_PASSWORD);
            return cluster.nodes();
        }

        @Override
        ValkeyConfig.Builder config() {
            return ValkeyConfig.cluster(cluster.seedAddresses().toArray(String[]::new));
        }

        @Override
        String rules() {
            return CLUSTER_RULES;
        }

        @Override
        ValkeyServer nodeFor(String valkeyKey) {
            return cluster.primaryForKey(valkeyKey);
        }

        @Override
        List<ValkeyServer> primaries() {
            return cluster.primaries();
        }

        @Override
        void stopServers() {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /** {@link ScriptMode#PRELOADED_FUNCTION}: the administrator installs the function; the user has only {@code +fcall}. */
    @Nested
    class StandaloneFunction extends Standalone {

        @Override
        ScriptMode scriptMode() {
            return ScriptMode.PRELOADED_FUNCTION;
        }

        @Override
        String rules() {
            return STANDALONE_FUNCTION_RULES;
        }
    }

    /** {@link ScriptMode#PRELOADED_FUNCTION} in a cluster: the function is installed on every primary. */
    @Nested
    class ClusterFunction extends Cluster {

        @Override
        ScriptMode scriptMode() {
            return ScriptMode.PRELOADED_FUNCTION;
        }

        @Override
        String rules() {
            return CLUSTER_FUNCTION_RULES;
        }
    }

    /** The standalone failover probe (ROLE on every address) works under the ACL too. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class StandaloneWithReplica {

        private ValkeyReplicationGroup group;
        private Leases leases;

        @BeforeAll
        void start() {
            group = ValkeyServers.primaryWithReplica("--requirepass", ADMIN_PASSWORD);
            grant(group.primary(), STANDALONE_RULES);
            grant(group.replica(), STANDALONE_RULES);
            leases = Leases.of(ValkeyLeaseStore.create(ValkeyConfig.standalone(
                            group.primary().address(), group.replica().address())
                    .credentials(USER, PASSWORD)
                    .requestTimeout(Duration.ofMillis(300))
                    .failoverProbeInterval(Duration.ofMillis(300))
                    .build()));
        }

        @AfterAll
        void stop() {
            if (leases != null) {
                leases.close();
            }
            if (group != null) {
                group.close();
            }
        }

        @Test
        void leases_primaryKilledAndReplicaPromoted_followThePromotedReplica() {
            assertThat(leases.tryAcquire("before").orElseThrow().release()).isEqualTo(ReleaseResult.RELEASED);

            group.primary().kill();
            assertThatThrownBy(() -> leases.tryAcquire("during")).isInstanceOf(LeaseStoreUnavailableException.class);
            group.promoteReplica();

            await().atMost(Timing.scaled(Duration.ofSeconds(15)))
                    .pollInterval(Duration.ofMillis(50))
                    .ignoreExceptionsInstanceOf(LeaseStoreUnavailableException.class)
                    .untilAsserted(() -> assertThat(
                                    leases.tryAcquire("after").orElseThrow().release())
                            .isEqualTo(ReleaseResult.RELEASED));
            assertThat((List<?>) group.replica().command("ACL", "LOG"))
                    .as("ACL LOG of the promoted replica")
                    .isEmpty();
        }
    }

    static void grant(ValkeyServer node, String rules) {
        List<String> command = new ArrayList<>(List.of("ACL", "SETUSER", USER));
        command.addAll(List.of(rules.split(" ")));
        node.command(command.toArray(String[]::new));
    }

    /** One command as the restricted user, on a fresh connection; an error reply comes back as the exception. */
    static Object asUser(ValkeyServer node, String... command) {
        List<Object> replies = node.pipeline(List.of(List.of("AUTH", USER, PASSWORD), List.of(command)));
        assertThat(replies.get(0)).as("AUTH as %s", USER).isEqualTo("OK");
        return replies.get(1);
    }

    static void assertRefused(Object reply) {
        assertThat(reply).isInstanceOf(ValkeyReplyException.class);
        assertThat(((ValkeyReplyException) reply).reply()).containsIgnoringCase("no permissions");
    }

    static String sha1(String script) throws Exception {
        byte[] digest = MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(digest);
    }
}
