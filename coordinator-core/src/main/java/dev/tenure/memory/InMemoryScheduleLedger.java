package dev.tenure.memory;

import dev.tenure.spi.ScheduleLedger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ScheduleLedger} in memory, for users' unit tests, over an {@link InMemoryRunLedger}: the schedules with
 * their versions, states and spans, the sweeper's positions and catch-up requests, with the run ledger's clock as the
 * "database clock". Single process; not transactional (a settle applies at once). A MISSED record over a RUNNING run
 * whose lease ended does not move the job's epoch on here: the holder's finish still reads the MISSED row and reports its
 * lease lost. Thread-safe (every method is synchronized).
 */
public final class InMemoryScheduleLedger implements ScheduleLedger {

    private static final class Entry {
        ScheduleRow row;
        String state = ACTIVE;
        int version = 1;

        @Nullable
        Instant versionFrom;

        Instant registeredAt;
        Instant sweptUntil;
        Instant seenAt;

        @Nullable
        Instant checkAt;

        @Nullable
        Instant sweptAt;

        final List<Version> earlier = new ArrayList<>();
        final List<Span> spans = new ArrayList<>();

        Entry(ScheduleRow row, Instant now) {
            this.row = row;
            this.registeredAt = now;
            this.sweptUntil = row.firstFire() == null ? now : row.firstFire().minusMillis(1);
            this.seenAt = now;
            this.checkAt = now;
            this.versionFrom = now;
        }
    }

    private final InMemoryRunLedger runs;
    private final Map<String, Entry> schedules = new LinkedHashMap<>();
    private final Map<String, DueFire> catchUps = new LinkedHashMap<>();
    private final List<Summary> summaries = new ArrayList<>();

    /** @param runs the run ledger whose runs the sweeper reads and whose clock decides what is due */
    public InMemoryScheduleLedger(InMemoryRunLedger runs) {
        this.runs = runs;
    }

    private Instant now() {
        return runs.clock().instant();
    }

    /** The summary records written so far (fires counted together after a long outage). */
    public synchronized List<Summary> summaries() {
        return List.copyOf(summaries);
    }

    /** The state of the schedule of {@code jobKey}, if it has one. */
    public synchronized Optional<String> stateOf(String jobKey) {
        return Optional.ofNullable(schedules.get(jobKey)).map(e -> e.state);
    }

    @Override
    public synchronized Registered register(ScheduleRow row) {
        Instant now = now();
        Entry e = schedules.get(row.jobKey());
        if (e == null) {
            schedules.put(row.jobKey(), new Entry(row, now));
            return new Registered(true, 1, Optional.empty(), null, false);
        }
        ScheduleRow old = e.row;
        Instant previousAt = e.registeredAt;
        boolean differs = !(old.kind().equals(row.kind()) && old.expression().equals(row.expression()));
        boolean reactivated = e.state.equals(RETIRED);
        if (differs) {
            e.earlier.add(new Version(e.version, old.kind(), old.expression(), e.versionFrom, now));
            e.version++;
            e.versionFrom = now;
        }
        if (reactivated) {
            closeSpan(e, now);
            e.state = ACTIVE;
        }
        if (differs || reactivated) {
            e.checkAt = now;
        }
        e.row = row;
        e.registeredAt = now;
        e.seenAt = now;
        return new Registered(false, e.version, differs ? Optional.of(old) : Optional.empty(), previousAt, reactivated);
    }

    private static Instant retiredSince(Entry e) {
        return e.spans.stream()
                .filter(s -> s.until() == null && s.state().equals(RETIRED))
                .map(Span::from)
                .findFirst()
                .orElse(Instant.MIN);
    }

    private static void closeSpan(Entry e, Instant at) {
        for (int i = 0; i < e.spans.size(); i++) {
            Span s = e.spans.get(i);
            if (s.until() == null) {
                e.spans.set(i, new Span(s.state(), s.from(), at, s.reason()));
            }
        }
    }

    @Override
    public synchronized void seen(Collection<String> jobKeys, Duration every) {
        Instant now = now();
        jobKeys.forEach(k -> {
            Entry e = schedules.get(k);
            if (e != null) {
                e.seenAt = now;
            }
        });
    }

    @Override
    public synchronized Due due(String application, int limit) {
        Instant now = now();
        List<Map.Entry<String, Entry>> ready = schedules.entrySet().stream()
                .filter(x -> x.getValue().row.application().equals(application)
                        && (!x.getValue().state.equals(RETIRED)
                                || retiredSince(x.getValue()).isAfter(x.getValue().sweptUntil))
                        && x.getValue().checkAt != null
                        && !x.getValue().checkAt.isAfter(now))
                .sorted(Comparator.comparing(x -> x.getValue().checkAt))
                .toList();
        List<Tracked> out = new ArrayList<>();
        for (Map.Entry<String, Entry> x : ready.subList(0, Math.min(limit, ready.size()))) {
            Entry e = x.getValue();
            out.add(new Tracked(
                    x.getKey(),
                    e.row.application(),
                    e.state,
                    e.version,
                    e.row.kind(),
                    e.row.expression(),
                    e.versionFrom,
                    e.row.policy(),
                    e.sweptUntil,
                    e.earlier.stream()
                            .filter(v -> v.until().isAfter(e.sweptUntil))
                            .toList(),
                    e.spans.stream()
                            .filter(s -> s.until() == null || s.until().isAfter(e.sweptUntil))
                            .toList(),
                    e.seenAt,
                    e.sweptAt));
        }
        return new Due(now, out, ready.size() > limit);
    }

    @Override
    public List<FireStatus> states(List<DueFire> fires) {
        List<FireStatus> out = new ArrayList<>(fires.size());
        for (DueFire f : fires) {
            out.add(new FireStatus(f, runs.fireState(f.jobKey(), f.fireKey()), null));
        }
        return out;
    }

    @Override
    public Map<String, List<RunState>> runsSince(Map<String, Instant> since) {
        Map<String, List<RunState>> out = new HashMap<>();
        since.keySet().forEach(job -> {
            List<RunState> list = new ArrayList<>();
            runs.fireStates(job).forEach((fire, state) -> list.add(new RunState(fire, state, null)));
            out.put(job, list);
        });
        return out;
    }

    @Override
    public synchronized Settled settle(
            List<Missed> missed, List<Summary> summaries, Function<Settled, List<SweepMark>> marks, String sweeper) {
        Set<DueFire> recorded = new HashSet<>();
        for (Missed m : missed) {
            if (runs.recordMissed(m.fire().jobKey(), m.fire().fireKey(), sweeper)) {
                recorded.add(m.fire());
            }
        }
        this.summaries.addAll(summaries);
        Settled s = new Settled(recorded, Set.of());
        swept(marks.apply(s), sweeper);
        return s;
    }

    @Override
    public synchronized void swept(List<SweepMark> marks, String sweeper) {
        for (SweepMark m : marks) {
            Entry e = schedules.get(m.jobKey());
            if (e != null) {
                if (m.sweptUntil().isAfter(e.sweptUntil)) {
                    e.sweptUntil = m.sweptUntil();
                }
                e.sweptAt = now();
                boolean changed = e.version != m.version() || !e.state.equals(m.state());
                e.checkAt = changed ? now() : m.checkAt();
            }
        }
    }

    @Override
    public synchronized void pause(String jobKey, Instant from, String reason, String by) {
        Entry e = schedules.get(jobKey);
        if (e != null && e.state.equals(ACTIVE)) {
            e.state = PAUSED;
            e.spans.add(new Span(PAUSED, from, null, reason));
        }
    }

    @Override
    public synchronized void resume(String jobKey, Instant at, String by) {
        Entry e = schedules.get(jobKey);
        if (e != null && e.state.equals(PAUSED)) {
            closeSpan(e, at);
            e.state = ACTIVE;
            e.checkAt = at;
        }
    }

    @Override
    public synchronized List<String> retireUnseen(Duration unseenFor, String by) {
        Instant now = now();
        List<String> out = new ArrayList<>();
        schedules.forEach((k, e) -> {
            if (!e.state.equals(RETIRED) && e.seenAt.plus(unseenFor).isBefore(now)) {
                closeSpan(e, now);
                e.state = RETIRED;
                e.spans.add(new Span(RETIRED, now, null, "no live process registered it for " + unseenFor));
                e.checkAt = now;
                out.add(k);
            }
        });
        return out;
    }

    @Override
    public synchronized List<Unswept> unswept(Duration behind, int limit) {
        Instant now = now();
        List<Unswept> out = new ArrayList<>();
        schedules.forEach((k, e) -> {
            if (e.state.equals(ACTIVE)
                    && e.checkAt != null
                    && e.checkAt.plus(behind).isBefore(now)
                    && out.size() < limit) {
                out.add(new Unswept(k, e.row.application(), null, e.checkAt));
            }
        });
        return out;
    }

    @Override
    public synchronized void requestCatchUps(List<DueFire> fires, String by) {
        fires.forEach(f -> catchUps.putIfAbsent(f.jobKey() + "\n" + f.fireKey(), f));
    }

    @Override
    public synchronized List<DueFire> takeCatchUps(Collection<String> jobKeys, int limit) {
        List<DueFire> out = new ArrayList<>();
        var it = catchUps.values().iterator();
        while (it.hasNext() && out.size() < limit) {
            DueFire f = it.next();
            if (jobKeys.contains(f.jobKey())) {
                out.add(f);
                it.remove();
            }
        }
        return out;
    }
}
