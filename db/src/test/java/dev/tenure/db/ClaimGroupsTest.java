package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.Timing;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** How {@link ClaimGroups} forms groups and answers their claims; the statement is a stand-in (pure logic). */
class ClaimGroupsTest {

    private static final long WAIT = Timing.scaledMillis(10_000);

    /** A claim: its job, and a name to answer with. */
    private record C(String job, String name) {}

    @Test
    void aLoneClaimGoesAtOnce_alone() {
        List<List<C>> sent = Collections.synchronizedList(new ArrayList<>());
        ClaimGroups<C> g = new ClaimGroups<>(1, 16, C::job, group -> {
            sent.add(group);
            return group.stream()
                    .<ClaimGroups.Answer>map(c -> new ClaimGroups.Value(c.name()))
                    .collect(Collectors.toList());
        });
        assertThat(g.claim(new C("a", "x"))).isEqualTo(new ClaimGroups.Value("x"));
        assertThat(sent).containsExactly(List.of(new C("a", "x")));
        assertThat(g.sent()).containsExactly(1, 1);
    }

    @Test
    void claimsWaitingBehindARunningStatement_goTogether_oneOfEachJob_atMostMaxSize() throws Exception {
        CountDownLatch firstSent = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<List<C>> sent = Collections.synchronizedList(new ArrayList<>());
        ClaimGroups<C> g = new ClaimGroups<>(1, 3, C::job, group -> {
            sent.add(group);
            if (group.get(0).name().equals("first")) {
                firstSent.countDown();
                await(release);
            }
            return group.stream()
                    .<ClaimGroups.Answer>map(c -> new ClaimGroups.Value(c.name()))
                    .collect(Collectors.toList());
        });
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            Future<ClaimGroups.Answer> first = pool.submit(() -> g.claim(new C("a", "first")));
            assertThat(firstSent.await(WAIT, TimeUnit.MILLISECONDS)).isTrue();
            // queued while the first statement runs: b, c, b again (same job: not in the same group), d, e
            List<Future<ClaimGroups.Answer>> rest = new ArrayList<>();
            for (C c :
                    List.of(new C("b", "b1"), new C("c", "c1"), new C("b", "b2"), new C("d", "d1"), new C("e", "e1"))) {
                rest.add(pool.submit(() -> g.claim(c)));
                waitUntilQueued(g, rest.size());
            }
            release.countDown();
            assertThat(first.get(WAIT, TimeUnit.MILLISECONDS)).isEqualTo(new ClaimGroups.Value("first"));
            List<String> names = new ArrayList<>();
            for (Future<ClaimGroups.Answer> f : rest) {
                names.add((String) ((ClaimGroups.Value) f.get(WAIT, TimeUnit.MILLISECONDS)).value());
            }
            assertThat(names).containsExactly("b1", "c1", "b2", "d1", "e1");
            assertThat(sent).hasSize(3);
            assertThat(sent.get(1)).extracting(C::name).containsExactly("b1", "c1", "d1");
            assertThat(sent.get(2)).extracting(C::name).containsExactly("b2", "e1");
            assertThat(g.sent()).containsExactly(3, 6);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aStatementThatThrows_failsEveryClaimOfItsGroup_andTheNextGroupsStillGo() throws Exception {
        CountDownLatch firstSent = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ClaimGroups<C> g = new ClaimGroups<>(1, 16, C::job, group -> {
            if (group.get(0).name().equals("first")) {
                firstSent.countDown();
                await(release);
                return List.of(new ClaimGroups.Value("first"));
            }
            if (group.size() > 1) {
                throw new AssertionError("the statement broke"); // an Error, not an exception
            }
            return List.of(new ClaimGroups.Value(group.get(0).name()));
        });
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            Future<ClaimGroups.Answer> first = pool.submit(() -> g.claim(new C("a", "first")));
            assertThat(firstSent.await(WAIT, TimeUnit.MILLISECONDS)).isTrue();
            Future<ClaimGroups.Answer> b = pool.submit(() -> g.claim(new C("b", "b")));
            waitUntilQueued(g, 1);
            Future<ClaimGroups.Answer> c = pool.submit(() -> g.claim(new C("c", "c")));
            waitUntilQueued(g, 2);
            release.countDown();
            first.get(WAIT, TimeUnit.MILLISECONDS);
            for (Future<ClaimGroups.Answer> f : List.of(b, c)) {
                assertThat(f.get(WAIT, TimeUnit.MILLISECONDS))
                        .isInstanceOfSatisfying(
                                ClaimGroups.Failed.class,
                                x -> assertThat(x.error()).hasRootCauseMessage("the statement broke"));
            }
            assertThat(g.claim(new C("d", "d"))).isEqualTo(new ClaimGroups.Value("d"));
        } finally {
            pool.shutdownNow();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(WAIT, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("not released in " + WAIT + " ms");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void waitUntilQueued(ClaimGroups<C> g, int n) throws InterruptedException {
        long until = System.nanoTime() + WAIT * 1_000_000;
        while (g.queued() < n) {
            if (System.nanoTime() > until) {
                throw new IllegalStateException(n + " claims not queued in " + WAIT + " ms");
            }
            Thread.sleep(1);
        }
    }
}
