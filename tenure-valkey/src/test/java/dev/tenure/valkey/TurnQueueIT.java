package dev.tenure.valkey;

import static glide.api.models.GlideString.gs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.Leases;
import dev.tenure.ReleaseResult;
import dev.tenure.ValkeyConfig;
import dev.tenure.spi.AcquireResult;
import dev.tenure.spi.LeaseStore.TurnRelease;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import dev.tenure.testkit.ValkeyServer;
import dev.tenure.testkit.ValkeyServers;
import glide.api.GlideClient;
import glide.api.models.configuration.GlideClientConfiguration;
import glide.api.models.configuration.NodeAddress;
import glide.api.models.configuration.StandaloneSubscriptionConfiguration;
import glide.api.models.configuration.StandaloneSubscriptionConfiguration.PubSubChannelMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The queue of waiting processes in Valkey, at the store's level, on a real server: a refused waiting attempt queues
 * its engine once, in order; a contended release passes the key to the next engine's reserved turn, which only that
 * engine can take and only it is told about; a yielding holder goes to the tail; a reserved turn nobody takes ends by
 * itself; an engine leaving the queue passes on a turn reserved for it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TurnQueueIT {

    private static final Duration TTL = Duration.ofSeconds(10);

    ValkeyServer server;
    ValkeyLeaseStore store;

    @BeforeAll
    void start() {
        server = ValkeyServers.standalone();
        // a reserved turn lasts half the request timeout (bounded to 50 .. 250 ms): 200 ms here
        store = ValkeyLeaseStore.create(ValkeyConfig.standalone(server.address())
                .requestTimeout(Duration.ofMillis(400))
                .build());
    }

    @AfterAll
    void stop() {
        store.close();
        server.close();
    }

    @Test
    void releasePassesTheKeyToTheQueuedEnginesInTurn_andOnlyTheChosenOneIsToldAndCanTakeIt() throws Exception {
        String key = "turns";
        assertThat(store.queuesWaiters()).isTrue();
        assertThat(get(store.tryAcquire(key, "a.1", TTL, false, "a."))).isInstanceOf(AcquireResult.Acquired.class);

        // b and c wait: refused, queued once each, in order
        assertThat(get(store.tryAcquire(key, "b.1", TTL, false, "b."))).isInstanceOf(AcquireResult.Held.class);
        assertThat(get(store.tryAcquire(key, "c.1", TTL, false, "c."))).isInstanceOf(AcquireResult.Held.class);
        assertThat(get(store.tryAcquire(key, "b.2", TTL, false, "b."))).isInstanceOf(AcquireResult.Held.class);
        assertThat(queue(key)).containsExactly("b.", "c.");

        AtomicInteger toldB = new AtomicInteger();
        AtomicInteger toldC = new AtomicInteger();
        try (AutoCloseable sb = store.subscribeReleases(key, "b.", toldB::incrementAndGet);
                AutoCloseable sc = store.subscribeReleases(key, "c.", toldC::incrementAndGet)) {
            Thread.sleep(Timing.scaledMillis(300)); // the subscriptions are confirmed asynchronously

            // a releases while others wait: b's turn (reserved for 200 ms: the steps up to b's claim run at once)
            assertThat(get(store.releaseTurn(key, "a.1", null))).isEqualTo(TurnRelease.PASSED);
            assertThat(server.command("GET", store.leaseKeyOf(key))).isEqualTo("q:b.");
            assertThat(queue(key)).containsExactly("c.");

            // nobody else can take b's turn, not even a plain attempt, and c stays queued once
            AcquireResult other = get(store.tryAcquire(key, "c.2", TTL, false, "c."));
            assertThat(other).isInstanceOf(AcquireResult.Held.class);
            assertThat(((AcquireResult.Held) other).owner()).isEqualTo("q:b.");
            assertThat(get(store.tryAcquire(key, "x.1", TTL, false))).isInstanceOf(AcquireResult.Held.class);
            assertThat(get(store.renew(key, "a.1", TTL))).isFalse();
            assertThat(get(store.release(key, "a.1"))).isFalse();
            assertThat(queue(key)).containsExactly("c.");

            // b takes its turn under a fresh owner id
            assertThat(get(store.tryAcquire(key, "b.3", TTL, false, "b."))).isInstanceOf(AcquireResult.Acquired.class);
            assertThat(server.command("GET", store.leaseKeyOf(key))).isEqualTo("b.3");
            long pttl = (Long) server.command("PTTL", store.leaseKeyOf(key));
            assertThat(pttl).as("the lease's own TTL, not the turn's").isGreaterThan(5_000);
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> toldB.get() == 1);
            Thread.sleep(100);
            assertThat(toldC).as("c is not woken for b's turn").hasValue(0);

            // b yields with waiters of its own: c's turn, b at the tail; c takes it at once
            assertThat(get(store.releaseTurn(key, "b.3", "b."))).isEqualTo(TurnRelease.PASSED);
            assertThat(server.command("GET", store.leaseKeyOf(key))).isEqualTo("q:c.");
            assertThat(queue(key)).containsExactly("b.");
            assertThat(get(store.tryAcquire(key, "c.3", TTL, false, "c."))).isInstanceOf(AcquireResult.Acquired.class);
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> toldC.get() == 1);
            assertThat(toldB).hasValue(1);

            // c releases with nobody else queued but b: b's turn
            assertThat(get(store.release(key, "c.3"))).isTrue();
            assertThat(server.command("GET", store.leaseKeyOf(key))).isEqualTo("q:b.");

            // b leaves instead of taking it: the turn is passed on; with nobody queued the key is free and everyone
            // told
            store.leaveQueue(key, "b.");
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> toldB.get() >= 2);
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> server.command("GET", store.leaseKeyOf(key)) == null);
            assertThat(queue(key)).isEmpty();
            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> toldC.get() == 2 && toldB.get() == 3);
        }
    }

    /**
     * What the server publishes, seen by a plain subscriber of every channel involved: a pass goes out on the chosen
     * process's own turn channel only (no other waiting process is woken for it), a free key on the lease channel.
     */
    @Test
    void aPassIsPublishedOnTheChosenProcessTurnChannelAlone() throws Exception {
        String key = "turn-channels";
        String leaseChannel = store.leaseKeyOf(key);
        String turnB = store.turnChannelOf(key, "b.");
        String turnC = store.turnChannelOf(key, "c.");
        List<String> seen = new CopyOnWriteArrayList<>();
        var subscriptions = StandaloneSubscriptionConfiguration.builder()
                .callback((msg, ctx) -> seen.add(msg.getChannel() + " " + msg.getMessage()));
        for (String channel : List.of(leaseChannel, turnB, turnC)) {
            subscriptions.subscription(PubSubChannelMode.EXACT, gs(channel));
        }
        try (GlideClient watcher = GlideClient.createClient(GlideClientConfiguration.builder()
                        .address(NodeAddress.builder()
                                .host(server.host())
                                .port(server.port())
                                .build())
                        .subscriptionConfiguration(subscriptions.build())
                        .build())
                .get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS)) {
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> List.of(leaseChannel, turnB, turnC).stream()
                            .allMatch(ch ->
                                    Long.valueOf(1).equals(((List<?>) server.command("PUBSUB", "NUMSUB", ch)).get(1))));

            assertThat(get(store.tryAcquire(key, "a.1", TTL, false, "a."))).isInstanceOf(AcquireResult.Acquired.class);
            assertThat(get(store.tryAcquire(key, "b.1", TTL, false, "b."))).isInstanceOf(AcquireResult.Held.class);
            assertThat(get(store.tryAcquire(key, "c.1", TTL, false, "c."))).isInstanceOf(AcquireResult.Held.class);
            assertThat(get(store.release(key, "a.1"))).isTrue(); // b's turn
            assertThat(get(store.tryAcquire(key, "b.2", TTL, false, "b."))).isInstanceOf(AcquireResult.Acquired.class);
            assertThat(get(store.release(key, "b.2"))).isTrue(); // c's turn
            assertThat(get(store.tryAcquire(key, "c.2", TTL, false, "c."))).isInstanceOf(AcquireResult.Acquired.class);
            assertThat(get(store.release(key, "c.2"))).isTrue(); // nobody queued: the key is free, everyone told

            await().atMost(Timing.scaled(Duration.ofSeconds(5))).until(() -> seen.size() >= 3);
            Thread.sleep(200);
            assertThat(seen).containsExactly(turnB + " t", turnC + " t", leaseChannel + " r");
        }
    }

    @Test
    void aReservedTurnNobodyTakes_endsByItself_andAnUncontendedReleaseTouchesNoQueue() throws Exception {
        String key = "abandoned-turn";
        assertThat(get(store.tryAcquire(key, "a.1", TTL, false, "a."))).isInstanceOf(AcquireResult.Acquired.class);
        assertThat(get(store.tryAcquire(key, "dead.1", TTL, false, "dead."))).isInstanceOf(AcquireResult.Held.class);
        assertThat(get(store.releaseTurn(key, "a.1", null))).isEqualTo(TurnRelease.PASSED);
        long pttl = (Long) server.command("PTTL", store.leaseKeyOf(key));
        assertThat(pttl).as("the turn lasts half the request timeout").isBetween(1L, 200L);

        await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> server.command("GET", store.leaseKeyOf(key)) == null);
        assertThat(get(store.tryAcquire(key, "e.1", TTL, false))).isInstanceOf(AcquireResult.Acquired.class);

        // nobody waits any more (the marker expires 2 s after the last refused attempt): a plain DEL, no turn
        await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                .until(() -> server.command("EXISTS", store.waitingKeyOf(key)).equals(0L));
        assertThat(get(store.releaseTurn(key, "e.1", "e."))).isEqualTo(TurnRelease.FREED);
        assertThat(queue(key)).isEmpty();
    }

    /**
     * A lone release is one script call in the short form when nobody waits (MGET and DEL inside it, nothing published),
     * refuses a release that is not ours in that call, and when someone waits it goes again in the batch form, which
     * passes the key on: two calls, the key in the next process's turn.
     */
    @Test
    void aLoneRelease_isOneShortCallWhenNobodyWaits_andTwoCallsThatPassTheKeyWhenSomeoneDoes() throws Exception {
        String key = "lone-release";
        assertThat(get(store.tryAcquire(key, "a.1", TTL, false, "a."))).isInstanceOf(AcquireResult.Acquired.class);
        server.command("CONFIG", "SET", "slowlog-log-slower-than", "0"); // the slow log keeps every call's arguments
        server.command("SLOWLOG", "RESET");
        Map<String, Long> before = server.commandCalls();
        assertThat(get(store.release(key, "a.2"))).as("not ours").isFalse();
        assertThat(get(store.release(key, "a.1"))).isTrue();
        Map<String, Long> after = server.commandCalls();
        List<List<String>> calls = scriptCalls();
        server.command("CONFIG", "SET", "slowlog-log-slower-than", "10000");
        assertThat(calls)
                .as("both releases in the short form: two keys, the owner")
                .containsExactlyInAnyOrder(
                        List.of("2", store.leaseKeyOf(key), store.waitingKeyOf(key), "a.2"),
                        List.of("2", store.leaseKeyOf(key), store.waitingKeyOf(key), "a.1"));
        assertThat(delta(before, after, "evalsha")).isEqualTo(2);
        assertThat(delta(before, after, "mget")).isEqualTo(2);
        assertThat(delta(before, after, "del")).isEqualTo(1);
        assertThat(delta(before, after, "publish")).isZero();
        assertThat(server.command("GET", store.leaseKeyOf(key))).isNull();

        assertThat(get(store.tryAcquire(key, "a.3", TTL, false, "a."))).isInstanceOf(AcquireResult.Acquired.class);
        assertThat(get(store.tryAcquire(key, "b.1", TTL, false, "b."))).isInstanceOf(AcquireResult.Held.class);
        before = server.commandCalls();
        assertThat(get(store.release(key, "a.3"))).isTrue();
        after = server.commandCalls();
        assertThat(delta(before, after, "evalsha"))
                .as("the short form, then the batch form that passes")
                .isEqualTo(2);
        assertThat(delta(before, after, "lpop")).isEqualTo(1);
        assertThat(server.command("GET", store.leaseKeyOf(key))).isEqualTo("q:b.");
        assertThat(get(store.tryAcquire(key, "b.2", TTL, false, "b."))).isInstanceOf(AcquireResult.Acquired.class);
        assertThat(get(store.release(key, "b.2"))).isTrue();
    }

    /** The arguments after the script's hash of every EVALSHA in the slow log. */
    private List<List<String>> scriptCalls() {
        List<List<String>> calls = new ArrayList<>();
        for (Object entry : (List<?>) server.command("SLOWLOG", "GET", "100")) {
            List<?> args = (List<?>) ((List<?>) entry).get(3);
            if ("EVALSHA".equalsIgnoreCase(String.valueOf(args.get(0)))) {
                calls.add(args.subList(2, args.size()).stream()
                        .map(String::valueOf)
                        .toList());
            }
        }
        return calls;
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String command) {
        return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
    }

    /**
     * A user whose ACL predates the queue (no list commands): the queue commands are refused inside the script (pcall),
     * and waiting works as before it, by notification and polling; nothing is queued.
     */
    @Test
    void anAclWithoutTheListCommands_stillWaitsAndHandsOver_withoutAQueue() throws Exception {
        // the documented standalone rules (AclIT) without the four list commands the queue added
        String oldRules = AclIT.STANDALONE_RULES.replace(" +lpos +rpush +lrem +lpop", "");
        assertThat(oldRules).isNotEqualTo(AclIT.STANDALONE_RULES);
        List<String> setUser = new ArrayList<>(List.of("ACL", "SETUSER", "oldacl"));
        setUser.addAll(List.of(oldRules.split(" ")));
        server.command(setUser.toArray(String[]::new));
        ValkeyConfig cfg = ValkeyConfig.standalone(server.address())
                .credentials("oldacl", AclIT.PASSWORD)
                .build();
        try (Leases holder = Leases.of(ValkeyLeaseStore.create(cfg));
                Leases waiter = Leases.of(ValkeyLeaseStore.create(cfg))) {
            Lease held = holder.tryAcquire("old-acl").orElseThrow();
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(
                    () -> waiter.acquire("old-acl", Duration.ofSeconds(10), LeaseOptions.ofTtl(TTL)));
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> server.command("EXISTS", store.waitingKeyOf("old-acl"))
                            .equals(1L));
            assertThat(held.release()).isEqualTo(ReleaseResult.RELEASED);
            Lease next = waiting.get(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS)
                    .orElseThrow();
            assertThat(next.state()).isEqualTo(LeaseState.ACTIVE);
            assertThat(next.release()).isEqualTo(ReleaseResult.RELEASED);
        }
        assertThat(server.command("EXISTS", store.queueKeyOf("old-acl"))).isEqualTo(0L);
        assertThat(String.valueOf(server.command("ACL", "LOG")))
                .as("the refused queue commands are logged")
                .contains("lpos");
    }

    /** {@code <address> <key>}: waits for the key (queued in Valkey), prints WAITING first and ACQUIRED if it gets it. */
    public static void main(String[] args) throws Exception {
        try (Leases leases = Leases.of(
                ValkeyLeaseStore.create(ValkeyConfig.standalone(args[0]).build()))) {
            System.out.println("WAITING");
            leases.acquire(args[1], Duration.ofSeconds(60), LeaseOptions.ofTtl(TTL))
                    .ifPresent(l -> System.out.println("ACQUIRED"));
        }
        System.exit(0);
    }

    /**
     * A process that dies while queued (SIGKILL) costs the others one reserved turn: the release passes the key to the
     * dead process's turn, which ends after half the request timeout (200 ms here), and the next waiter, a queued head
     * that asks again at least once a second, takes the key.
     */
    @Test
    void aQueuedProcessKilled_costsTheOthersOneShortTurn() throws Exception {
        String key = "dead-in-queue";
        ValkeyConfig cfg = ValkeyConfig.standalone(server.address())
                .requestTimeout(Duration.ofMillis(400))
                .build();
        try (Leases holder = Leases.of(ValkeyLeaseStore.create(cfg));
                Leases next = Leases.of(ValkeyLeaseStore.create(cfg));
                JvmProcess doomed = JvmProcess.start(TurnQueueIT.class, server.address(), key)) {
            Lease held = holder.tryAcquire(key, LeaseOptions.ofTtl(TTL)).orElseThrow();
            doomed.awaitStdoutLine("WAITING"::equals, Timing.scaled(Duration.ofSeconds(30)));
            await().atMost(Timing.scaled(Duration.ofSeconds(10)))
                    .until(() -> queue(key).size() == 1);
            CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(
                    () -> next.acquire(key, Duration.ofSeconds(20), LeaseOptions.ofTtl(TTL)));
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> queue(key).size() == 2);
            doomed.kill();

            long releasedAt = System.nanoTime();
            assertThat(held.release()).isEqualTo(ReleaseResult.RELEASED);
            Lease got = waiting.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS)
                    .orElseThrow();
            long waitedMs = (System.nanoTime() - releasedAt) / 1_000_000;
            System.out.println("the next waiter got the key " + waitedMs
                    + " ms after the release (the dead process's turn lasted 200 ms)");
            assertThat(waitedMs).as("at least the dead process's turn").isGreaterThanOrEqualTo(150);
            assertThat(got.state()).isEqualTo(LeaseState.ACTIVE);
            // the dead process's entry was used up; the waiter, served, takes its own out when it stops waiting
            await().atMost(Timing.scaled(Duration.ofSeconds(5)))
                    .until(() -> queue(key).isEmpty());
            assertThat(got.release()).isEqualTo(ReleaseResult.RELEASED);
        }
    }

    private List<Object> queue(String key) {
        @SuppressWarnings("unchecked")
        List<Object> q = (List<Object>) server.command("LRANGE", store.queueKeyOf(key), "0", "-1");
        return q;
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(Timing.scaledMillis(5000), TimeUnit.MILLISECONDS);
    }
}
