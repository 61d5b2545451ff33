package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.Lease;
import dev.tenure.LeaseOptions;
import dev.tenure.LeaseState;
import dev.tenure.Leases;
import dev.tenure.testkit.JvmProcess;
import dev.tenure.testkit.SettableTicker;
import dev.tenure.testkit.Timing;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Acceptance 3: database leases expire by the database clock only. Application clocks hours off (an injected
 * ticker here; the real wall clock of child JVMs under libfaketime) change nothing about who holds what. (Elections
 * whose tickers are hours apart: {@code LeaderElectionContract.tickersHoursApart_agreeOnTheLeader}.)
 */
class DatabaseClockIT {

    private static final Path FAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(DatabaseClockIT.class);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void holdersTickerJumpsHours_databaseHolderUnchangedUntilItsDatabaseTtl() {
        SettableTicker ticker = new SettableTicker(System.nanoTime());
        try (Leases jumping =
                        Leases.builder(Fixture.store(fx.pool)).ticker(ticker).build();
                Leases other = Leases.of(Fixture.store(fx.pool))) {
            LeaseOptions options = LeaseOptions.ofTtl(Duration.ofSeconds(2)).withRenewal(false);
            Lease lease = jumping.tryAcquire("jump", options).orElseThrow();
            ticker.advance(Duration.ofHours(3)); // this process now believes hours have passed
            Awaitility.await()
                    .atMost(Timing.scaled(Duration.ofSeconds(2)))
                    .until(() -> lease.state() == LeaseState.LOST);

            long started = System.nanoTime();
            assertThat(other.tryAcquire("jump", options))
                    .as("the database still says it is held")
                    .isEmpty();
            assertThat(fx.leases.holder("jump"))
                    .get()
                    .extracting(JobHolder::owner)
                    .isEqualTo(lease.owner());
            Optional<Lease> taken = Optional.empty();
            while (taken.isEmpty()) {
                taken = other.tryAcquire("jump", options);
                sleep(20);
            }
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf(
                    "ticker jumped 3 h: other process could take the key only after %d ms (database TTL 2000 ms)%n",
                    waited);
            assertThat(waited).isBetween(1500L, Timing.scaledMillis(4000));
            taken.get().release();
        }
    }

    @Test
    void childJvmsWithWallClocksHoursOff_seeTheDatabaseTtlOnly() throws Exception {
        // never a silent skip: without libfaketime this test fails and says what to install
        org.junit.jupiter.api.Assertions.assertTrue(
                Files.exists(FAKETIME),
                "libfaketime is not installed: apt-get install faketime " + "(scripts/prerequisites.sh does this)");
        // a holder whose wall clock is 3 h ahead: its 2 s lease is a 2 s lease for everyone
        Child holder = Child.start("+3h", "skew-a", "hold");
        try {
            String claimed = holder.await("CLAIMED ");
            Instant childWall = Instant.parse(holder.await("WALL ").substring(5));
            assertThat(Duration.between(Instant.now(), childWall)).isGreaterThan(Duration.ofHours(2));
            ClaimResult.Held h = (ClaimResult.Held) fx.leases.claim("skew-a", "real-clock", Duration.ofSeconds(2));
            assertThat(h.owner()).isEqualTo("skewed-holder");
            assertThat(h.remaining())
                    .isLessThanOrEqualTo(Duration.ofSeconds(2)); // unscaled: the lease's remaining time
            long started = System.nanoTime();
            while (!(fx.leases.claim("skew-a", "real-clock", Duration.ofSeconds(2)) instanceof ClaimResult.Claimed)) {
                sleep(20);
            }
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            System.out.printf(
                    "holder 3 h ahead (%s): real-clock claimant waited %d ms for its 2 s lease%n", claimed, waited);
            assertThat(waited).isLessThan(Timing.scaledMillis(2500));
        } finally {
            holder.close();
        }
        // a waiter whose wall clock is 3 h behind: it takes over when the database says so, not 3 h later
        Child waiter = Child.start("-3h", "skew-b", "wait");
        try {
            waiter.await("READY");
            ClaimResult.Claimed mine =
                    (ClaimResult.Claimed) fx.leases.claim("skew-b", "real-clock", Duration.ofSeconds(3));
            String held = waiter.await("HELD ");
            String claimed = waiter.await("CLAIMED ");
            long heldRemaining = Long.parseLong(held.split(" ")[2]);
            long after = Long.parseLong(claimed.substring(claimed.indexOf("AFTER ") + 6));
            System.out.printf(
                    "waiter 3 h behind: %s, then %s (lease of epoch %d had 3 s)%n", held, claimed, mine.epoch());
            assertThat(held).startsWith("HELD real-clock ");
            assertThat(heldRemaining).isBetween(1L, 3000L);
            assertThat(after)
                    .as("took over when the database lease ended")
                    .isBetween(heldRemaining - 300, heldRemaining + Timing.scaledMillis(1500));
            assertThat(Long.parseLong(claimed.split(" ")[1]))
                    .as("the waiter's epoch")
                    .isGreaterThan(mine.epoch());
        } finally {
            waiter.close();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A {@link SkewedClaimMain} child JVM under libfaketime (JvmProcess cannot set LD_PRELOAD). */
    private record Child(Process process, Path out) implements AutoCloseable {

        static Child start(String offset, String key, String mode) throws IOException {
            Path out = Files.createTempFile("tenure-skewed-", ".log");
            List<String> cmd = new ArrayList<>(List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp",
                    JvmProcess.classPath(),
                    SkewedClaimMain.class.getName(),
                    fx.db.jdbcUrl(),
                    orDash(fx.db.username()),
                    orDash(fx.db.password()),
                    key,
                    mode));
            ProcessBuilder pb =
                    new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
            pb.environment().put("LD_PRELOAD", FAKETIME.toString());
            pb.environment().put("FAKETIME", offset);
            pb.environment().put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
            return new Child(pb.start(), out);
        }

        String await(String prefix) throws Exception {
            long deadline =
                    System.nanoTime() + Timing.scaled(Duration.ofSeconds(30)).toNanos();
            while (System.nanoTime() < deadline) {
                for (String line : Files.readAllLines(out)) {
                    if (line.startsWith(prefix)) {
                        return line;
                    }
                }
                if (!process.isAlive() && process.exitValue() != 0) {
                    throw new IllegalStateException(
                            "child exited " + process.exitValue() + ": " + Files.readAllLines(out));
                }
                Thread.sleep(20);
            }
            throw new IllegalStateException(
                    "no line starting with '" + prefix + "' from the child: " + Files.readAllLines(out));
        }

        @Override
        public void close() throws IOException {
            process.destroyForcibly();
            try {
                process.waitFor(Timing.scaledMillis(10_000), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Files.deleteIfExists(out);
        }

        private static String orDash(String s) {
            return s == null ? "-" : s;
        }
    }
}
