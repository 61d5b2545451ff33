package dev.tenure.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * A fault tour for "every fire accounted for": three node processes run two jobs on a {@value #SLOT_SECONDS}-second
 * schedule, one whose missed fires are caught up and one whose missed fires are skipped, while the tour kills (SIGKILL)
 * the node running a fire of the first job and starts a replacement, freezes (SIGSTOP) the node running a fire of the
 * second job mid-transaction for 25 s, then stops (SIGTERM) the node running a fire of the first job and starts it
 * again. The window it watches lasts at least 60 s. {@link FireAccounts} holds what happened and asserts the contract.
 *
 * <p>What a node must do, so that the tour can drive it:
 * <ul>
 * <li>print {@code READY} (or a line starting with {@code READY }) once it fires;</li>
 * <li>print {@code BEGIN <job key> <fire key> <node name> <epoch millis>} when it holds a fire, then spend about a
 *     second inside the fire's fenced transaction before it writes one row {@code (job, slot)} into the business
 *     table (no unique key on the slot) and completes the fire in the same commit;</li>
 * <li>fire both jobs at every multiple of {@value #SLOT_SECONDS} s since the epoch, with the ISO-8601 instant as the
 *     fire key, and close its scheduler and then Tenure on SIGTERM.</li>
 * </ul>
 * Not thread-safe: one tour, one thread. The nodes it started are closed by {@link #run()}.
 */
public final class FireAccountingTour {

    static final int SLOT_SECONDS = 2;
    /** The slot period of the nodes' schedule. */
    public static final Duration SLOT = Duration.ofSeconds(SLOT_SECONDS);

    static final Duration FREEZE = Duration.ofSeconds(25);
    private static final Duration MIN_WINDOW = Duration.ofSeconds(60);

    private final PostgresDatabase db;
    private final String table;
    private final String catchUpJob;
    private final String skipJob;
    private final Function<String, JvmProcess> starter;
    private final Map<String, JvmProcess> nodes = new LinkedHashMap<>();
    private Path outputDir;

    /**
     * @param db         the database of Tenure's schema and of the business table
     * @param table      the business table: columns {@code job} and {@code slot} (the fire key), one row per fire run
     * @param catchUpJob the job key of the job whose missed fires are caught up
     * @param skipJob    the job key of the job whose missed fires are recorded MISSED
     * @param starter    starts the node of the given name (a, b, c, then a2 and so on for replacements)
     */
    public FireAccountingTour(
            PostgresDatabase db,
            String table,
            String catchUpJob,
            String skipJob,
            Function<String, JvmProcess> starter) {
        this.db = db;
        this.table = table;
        this.catchUpJob = catchUpJob;
        this.skipJob = skipJob;
        this.starter = starter;
    }

    /**
     * Keeps each node's stdout and stderr in {@code dir} ({@code <node>.out}, {@code <node>.err}) when the tour ends;
     * the files of an earlier tour there are deleted when this one starts.
     */
    public FireAccountingTour keepOutputIn(Path dir) {
        this.outputDir = dir;
        return this;
    }

    /** A fault on node {@code node} at {@code at} (epoch millis), while it ran {@code slot} of {@code job}. */
    public record Fault(String kind, String job, String node, Instant slot, long at) {}

    /** A BEGIN line: node {@code node} holds {@code slot} of {@code job} since {@code at} (epoch millis). */
    public record Begin(String job, Instant slot, String node, long at) {
        static Optional<Begin> parse(String line) {
            String[] p = line.split(" ");
            if (!line.startsWith("BEGIN ") || p.length != 5) {
                return Optional.empty();
            }
            return Optional.of(new Begin(p[1], Instant.parse(p[2]), p[3], Long.parseLong(p[4])));
        }
    }

    /**
     * Starts the three nodes, runs the three faults, waits up to 60 s (scaled) after the window for every slot of it to
     * settle (a completed run or a MISSED record, for both jobs), stops every node and reads what happened. Whether it
     * settled is part of the result, checked by {@link FireAccounts#assertContract}.
     *
     * @throws AssertionError if a node does not start, a fault finds no fire to hit, or a stopped node does not exit
     */
    public FireAccounts run() throws InterruptedException, SQLException {
        List<Fault> faults = new ArrayList<>();
        clearOutput();
        try {
            for (String name : List.of("a", "b", "c")) {
                start(name);
            }
            nodes.values()
                    .forEach(n -> n.awaitStdoutLine(
                            l -> l.equals("READY") || l.startsWith("READY "), Timing.scaled(Duration.ofSeconds(120))));
            Instant windowStart = slotAfter(Instant.now().plusSeconds(2));
            String killed = kill(windowStart.plusSeconds(4), faults);
            String frozen = freeze(killed, faults);
            long exitedAt = stop(List.of(killed, frozen), faults);
            Instant windowEnd =
                    later(slotAfter(Instant.ofEpochMilli(exitedAt).plusSeconds(8)), windowStart.plus(MIN_WINDOW));
            FireAccounts.Ledger ledger = new FireAccounts.Ledger(db, table);
            boolean settled = awaitSettled(ledger, windowStart, windowEnd);
            List<String> output = new ArrayList<>();
            nodes.values().forEach(n -> {
                output.addAll(n.stdoutLines());
                output.addAll(n.stderrLines());
            });
            return FireAccounts.read(ledger, catchUpJob, skipJob, windowStart, windowEnd, settled, faults, output);
        } finally {
            nodes.forEach(this::keep);
            nodes.values().forEach(JvmProcess::close);
        }
    }

    /** SIGKILL of the node running a fire of the catch-up job after {@code after}, mid-run; starts a replacement. */
    private String kill(Instant after, List<Fault> faults) throws InterruptedException {
        Begin k = awaitBegin(catchUpJob, after, List.of());
        Thread.sleep(300);
        nodes.get(k.node()).kill();
        faults.add(new Fault("SIGKILL", k.job(), k.node(), k.slot(), System.currentTimeMillis()));
        start(k.node() + "2"); // the orchestrator replaces it
        return k.node();
    }

    /** SIGSTOP of the node running a fire of the skip job, inside its fenced transaction, for {@link #FREEZE}. */
    private String freeze(String killed, List<Fault> faults) throws InterruptedException {
        Begin f = awaitBegin(skipJob, Instant.now().plusSeconds(2), List.of(killed));
        Thread.sleep(400);
        JvmProcess frozen = nodes.get(f.node());
        frozen.pause();
        faults.add(new Fault(
                "SIGSTOP " + FREEZE.toSeconds() + " s", f.job(), f.node(), f.slot(), System.currentTimeMillis()));
        Thread.sleep(FREEZE.toMillis());
        frozen.resume();
        return f.node();
    }

    /**
     * SIGTERM of a third node (not in {@code hit}) while it runs a fire of the catch-up job; starts it again once it
     * exited, and returns when it exited.
     */
    private long stop(List<String> hit, List<Fault> faults) throws InterruptedException {
        Begin t = awaitBegin(catchUpJob, Instant.now().plusSeconds(4), hit);
        Thread.sleep(300);
        JvmProcess stopping = nodes.get(t.node());
        ProcessHandle.of(stopping.pid()).ifPresent(ProcessHandle::destroy);
        faults.add(new Fault("SIGTERM", t.job(), t.node(), t.slot(), System.currentTimeMillis()));
        if (stopping.waitFor(Timing.scaled(Duration.ofSeconds(30))).isEmpty()) {
            throw new AssertionError("node " + t.node() + " did not exit within 30 s of SIGTERM");
        }
        long exitedAt = System.currentTimeMillis();
        faults.add(new Fault("exited", t.job(), t.node(), t.slot(), exitedAt));
        start(t.node() + "2");
        return exitedAt;
    }

    private void start(String name) {
        nodes.put(name, starter.apply(name));
    }

    /** The first BEGIN of {@code job} for a slot after {@code after}, on a live node not in {@code except}. */
    private Begin awaitBegin(String job, Instant after, List<String> except) throws InterruptedException {
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(30)).toNanos();
        while (System.nanoTime() < deadline) {
            for (Map.Entry<String, JvmProcess> e : nodes.entrySet()) {
                if (except.contains(e.getKey()) || !e.getValue().isAlive()) {
                    continue;
                }
                Optional<Begin> b = e.getValue().stdoutLines().stream()
                        .map(Begin::parse)
                        .flatMap(Optional::stream)
                        .filter(x -> x.job().equals(job) && x.slot().isAfter(after))
                        .findFirst();
                if (b.isPresent()) {
                    return b.get();
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no node began a fire of " + job + " after " + after);
    }

    private void clearOutput() {
        if (outputDir == null || !Files.isDirectory(outputDir)) {
            return;
        }
        try (var files = Files.list(outputDir)) {
            for (Path f : files.filter(
                            f -> f.toString().endsWith(".out") || f.toString().endsWith(".err"))
                    .toList()) {
                Files.delete(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not clear " + outputDir, e);
        }
    }

    /** Copies a node's stdout and stderr into {@link #keepOutputIn}'s directory, if one was given. */
    private void keep(String name, JvmProcess n) {
        if (outputDir == null) {
            return;
        }
        try {
            Files.createDirectories(outputDir);
            Files.write(outputDir.resolve(name + ".out"), n.stdoutLines());
            Files.write(outputDir.resolve(name + ".err"), n.stderrLines());
        } catch (IOException e) {
            throw new UncheckedIOException("could not keep the output of node " + name + " in " + outputDir, e);
        }
    }

    /** Waits until every slot of the window has a completed run or a MISSED record, for both jobs; false if not in time. */
    private boolean awaitSettled(FireAccounts.Ledger ledger, Instant from, Instant to)
            throws SQLException, InterruptedException {
        long deadline =
                System.nanoTime() + Timing.scaled(Duration.ofSeconds(60)).toNanos();
        List<Instant> slots = FireAccounts.slots(from, to);
        while (System.nanoTime() < deadline) {
            if (ledger.settled(catchUpJob, slots) + ledger.settled(skipJob, slots) >= 2L * slots.size()) {
                return true;
            }
            Thread.sleep(500);
        }
        return false;
    }

    /** The first slot strictly after {@code t}. */
    static Instant slotAfter(Instant t) {
        long s = Math.floorDiv(t.getEpochSecond(), SLOT_SECONDS) * SLOT_SECONDS + SLOT_SECONDS;
        return Instant.ofEpochSecond(s);
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
