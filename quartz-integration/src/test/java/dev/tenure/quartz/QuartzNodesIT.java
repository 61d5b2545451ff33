package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.Timing;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three Quartz scheduler processes fire the same every-second cron job; Tenure lets exactly one of them run each slot.
 * The nodes mix both plug-in styles (listener pair and job factory), which must guard each other.
 */
class QuartzNodesIT {

    // 15 one-second slots on three nodes: every node gets slots, and the suite stays inside its 15 minutes
    private static final int SLOTS = 15;
    private QuartzServers servers;

    @BeforeEach
    void start() throws Exception {
        servers = new QuartzServers(QuartzNodesIT.class, null);
    }

    @AfterEach
    void stop() {
        servers.close();
    }

    @Test
    void ramJobStores_threeNodes_eachSlotExecutedExactlyOnce() throws Exception {
        everySlotOnce("ram");
    }

    @Test
    void clusteredJdbcJobStore_threeNodes_eachSlotExecutedExactlyOnce() throws Exception {
        everySlotOnce("jdbc");
    }

    private void everySlotOnce(String store) throws Exception {
        List<JvmProcess> nodes = List.of(
                servers.node("n1", store, "listeners", "tick", 3000),
                servers.node("n2", store, "factory", "tick", 3000),
                servers.node("n3", store, "listeners", "tick", 3000));
        for (JvmProcess n : nodes) {
            n.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(60)));
        }
        Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(3);
        Instant last = first.plusSeconds(SLOTS - 1);
        await().atMost(Timing.scaled(Duration.ofSeconds(SLOTS + 60)))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> Instant.now().isAfter(last.plusSeconds(3)));
        // A loaded machine may start the last slots late (a clustered store acquires its triggers through the
        // database): wait for them, then a moment more for a second run of any slot, before the nodes go.
        await("every slot of store " + store + " from " + first + " to " + last + " has run")
                .atMost(Timing.scaled(Duration.ofSeconds(30)))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> servers.executionsPerSlot("tick").keySet().containsAll(slots(first, last)));
        Thread.sleep(2000);
        nodes.forEach(JvmProcess::kill);

        Map<Instant, Integer> perSlot = servers.executionsPerSlot("tick");
        assertThat(perSlot.values()).as("no slot ever ran twice: %s", perSlot).allMatch(n -> n == 1);
        for (JvmProcess n : nodes) {
            assertThat(n.stdoutLines())
                    .as("no lease was lost, so no job was interrupted")
                    .doesNotContain("INTERRUPTED");
        }
        for (Instant slot : slots(first, last)) {
            assertThat(perSlot.get(slot))
                    .as("executions of slot %s (store %s)", slot, store)
                    .isEqualTo(1);
        }
        System.out.printf(
                "[quartz %s] %d slots from %s: executions per node %s%n",
                store, SLOTS, first, servers.executionsPerNode());
    }

    private static List<Instant> slots(Instant first, Instant last) {
        List<Instant> all = new java.util.ArrayList<>();
        for (Instant slot = first; !slot.isAfter(last); slot = slot.plusSeconds(1)) {
            all.add(slot);
        }
        return all;
    }

    @Test
    void executingNodeKilledMidJob_killedSlotCaughtUpOnceByTheSweeper_laterSlotsExactlyOnce() throws Exception {
        long ttl = 2000;
        List<JvmProcess> nodes = List.of(
                servers.node("n1", "ram", "listeners", "tick", ttl),
                servers.node("n2", "ram", "factory", "tick", ttl),
                servers.node("n3", "ram", "listeners", "tick", ttl));
        for (JvmProcess n : nodes) {
            n.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(60)));
        }
        await().atMost(Timing.scaled(Duration.ofSeconds(30)))
                .until(() -> servers.executionsPerSlot("tick").size() >= 3);

        AtomicReference<JvmProcess> staller = new AtomicReference<>();
        AtomicReference<String> stalledSlot = new AtomicReference<>();
        stallTheNextRun(nodes, staller, stalledSlot);
        servers.execute("UPDATE quartz_control SET stall = false");
        staller.get().kill();
        Instant killedAt = Instant.now();

        Instant settled = killedAt.plusMillis(ttl)
                .plusSeconds(2)
                .truncatedTo(ChronoUnit.SECONDS)
                .plusSeconds(1);
        Instant last = settled.plusSeconds(14);
        await().atMost(Timing.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> Instant.now().isAfter(last.plusSeconds(3)));
        // the killed slot is overdue once the dead holder's lease ended: the sweeper (every 5 s, after 5 s of grace)
        // catches it up through the scheduler, as a fire of that slot
        await().atMost(Timing.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> servers.executionsPerSlot("tick").containsKey(Instant.parse(stalledSlot.get())));
        // a slot whose fire found the job held by a catch-up is caught up in turn, a sweep or two later: every slot of
        // the window runs, once
        await().atMost(Timing.scaled(Duration.ofSeconds(60)))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> {
                    Map<Instant, Integer> ran = servers.executionsPerSlot("tick");
                    for (Instant slot = settled; !slot.isAfter(last); slot = slot.plusSeconds(1)) {
                        if (!ran.containsKey(slot)) {
                            return false;
                        }
                    }
                    return true;
                });
        nodes.forEach(JvmProcess::kill);

        Map<Instant, Integer> perSlot = servers.executionsPerSlot("tick");
        assertThat(perSlot.values()).as("no slot ever ran twice: %s", perSlot).allMatch(n -> n == 1);
        assertThat(perSlot.get(Instant.parse(stalledSlot.get())))
                .as("the killed slot %s, caught up", stalledSlot.get())
                .isEqualTo(1);
        assertThat(servers.runStatus("quartz:it:tick", stalledSlot.get())).isEqualTo("COMPLETED");
        for (Instant slot = settled; !slot.isAfter(last); slot = slot.plusSeconds(1)) {
            assertThat(perSlot.get(slot))
                    .as("executions of slot %s after the kill at %s", slot, killedAt)
                    .isEqualTo(1);
        }
        long skipped = perSlot.keySet().stream()
                .filter(s -> s.isAfter(Instant.parse(stalledSlot.get())) && s.isBefore(settled))
                .count();
        System.out.printf(
                "[quartz kill] killed %s in slot %s; slots executed between the kill and %s: %d; "
                        + "executions per node %s%n",
                staller.get(), stalledSlot.get(), settled, skipped, servers.executionsPerNode());
    }

    @Test
    void clusteredJdbc_nodeFrozenPastQuartzFailover_recoveryCompletesTheSlotOnce_zombieWriteFenced() throws Exception {
        List<JvmProcess> nodes = List.of(
                servers.node("n1", "jdbc", "listeners", "tick", 2000),
                servers.node("n2", "jdbc", "factory", "tick", 2000));
        for (JvmProcess n : nodes) {
            n.awaitStdoutLine("READY"::equals, Timing.scaled(Duration.ofSeconds(60)));
        }
        await().atMost(Timing.scaled(Duration.ofSeconds(30)))
                .until(() -> servers.executionsPerSlot("tick").size() >= 3);
        AtomicReference<JvmProcess> zombie = new AtomicReference<>();
        AtomicReference<String> slot = new AtomicReference<>();
        stallTheNextRun(nodes, zombie, slot);
        zombie.get().pause(); // alive but silent: Quartz declares it failed and recovers its job on the other node
        long pausedAt = System.currentTimeMillis();
        servers.execute("UPDATE quartz_control SET stall = false");
        JvmProcess survivor = nodes.get(nodes.get(0) == zombie.get() ? 1 : 0);
        try {
            survivor.awaitStdoutLine(
                    l -> l.startsWith("EXECUTED " + slot.get() + " "), Timing.scaled(Duration.ofSeconds(45)));
        } catch (IllegalStateException e) {
            throw new AssertionError(
                    "slot " + slot.get() + " was not recovered; frozen node's output: "
                            + zombie.get().stdoutLines(),
                    e);
        }
        long recoveredAfter = System.currentTimeMillis() - pausedAt;
        zombie.get().resume(); // its job wakes up after its sleep and tries its write
        String rejected = zombie.get()
                .awaitStdoutLine(l -> l.startsWith("JOB_FAILED " + slot.get()), Timing.scaled(Duration.ofSeconds(30)));
        nodes.forEach(JvmProcess::kill);

        assertThat(rejected).contains("StaleOwnerException");
        assertThat(servers.executionsPerSlot("tick").get(Instant.parse(slot.get())))
                .isEqualTo(1);
        assertThat(servers.executionsPerSlot("tick").values()).allMatch(n -> n == 1);
        assertThat(servers.runStatus("quartz:it:tick", slot.get())).isEqualTo("COMPLETED");
        System.out.printf(
                "[quartz jdbc recovery] slot %s frozen on %s; Quartz's recovery fire completed it on %s "
                        + "%d ms later; the zombie's write: %s%n",
                slot.get(), zombie.get(), survivor, recoveredAfter, rejected);
    }

    /** Makes the next run stall (print STALLING, sleep 5 s before its write); returns its node and slot. */
    private void stallTheNextRun(List<JvmProcess> nodes, AtomicReference<JvmProcess> node, AtomicReference<String> slot)
            throws Exception {
        servers.execute("UPDATE quartz_control SET stall = true");
        await().atMost(Timing.scaled(Duration.ofSeconds(20)))
                .pollInterval(Duration.ofMillis(10))
                .until(() -> {
                    for (JvmProcess n : nodes) {
                        for (String line : n.stdoutLines()) {
                            if (line.startsWith("STALLING ")) {
                                node.set(n);
                                slot.set(line.substring("STALLING ".length()));
                                return true;
                            }
                        }
                    }
                    return false;
                });
    }
}
