package dev.tenure;

import dev.tenure.spi.ScheduleLedger.DueFire;
import dev.tenure.spi.ScheduleLedger.Span;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Walks a job's fires from where its account stands, through the versions of its schedule and around the spans in
 * which it had no due fires, in a bounded number of steps. A schedule whose {@code nextAfter} does not move forward
 * (Spring's cron at some DST overlaps) is asked again a second, a minute and an hour later; one that still does not
 * move is an {@link IllegalStateException} naming the job, the schedule and the instant. Pure logic; thread-safe.
 */
final class FireWalk {

    /** Steps of one walk at most: a longer backlog is walked over several sweeps. */
    static final int MAX_STEPS = 200_000;

    private static final List<Duration> NUDGES =
            List.of(Duration.ofSeconds(1), Duration.ofMinutes(1), Duration.ofHours(1));

    private FireWalk() {}

    /** One version of a schedule, in force from {@code from} (null: the start) until {@code until} (null: for ever). */
    record Segment(
            int version,
            Schedule schedule,
            @Nullable Instant from,
            @Nullable Instant until) {}

    /**
     * The fires of one walk, oldest first. {@code walkedTo}: every fire due after the walk's start and at or before it
     * was looked at (it is the walk's end unless {@code cut}); {@code cut}: the step bound stopped the walk early.
     * {@code excused}: fires skipped because a span covered them.
     */
    record Result(List<DueFire> fires, Instant walkedTo, boolean cut, long excused) {}

    /**
     * The fires of {@code jobKey} due after {@code after} and at or before {@code to} in {@code segments} (sorted by
     * {@code from}), except those in {@code spans}, in at most {@code maxSteps} steps.
     */
    static Result walk(
            String jobKey, List<Segment> segments, List<Span> spans, Instant after, Instant to, int maxSteps) {
        List<DueFire> out = new ArrayList<>();
        Instant t = after;
        int steps = 0;
        long excused = 0;
        for (Segment s : segments) {
            if (s.until() != null && !s.until().isAfter(t)) {
                continue; // ended before the walk's position
            }
            if (s.from() != null && s.from().isAfter(to)) {
                break;
            }
            Instant cursor = s.from() != null && s.from().isAfter(t) ? s.from().minusNanos(1) : t;
            while (true) {
                if (steps >= maxSteps) {
                    return new Result(out, t, true, excused);
                }
                steps++;
                Optional<Instant> next = next(jobKey, s.schedule(), cursor);
                if (next.isEmpty()) {
                    break;
                }
                Instant due = next.get();
                if (due.isAfter(to) || (s.until() != null && !due.isBefore(s.until()))) {
                    break;
                }
                cursor = due;
                t = due;
                Span covering = covering(spans, due);
                if (covering != null) {
                    if (covering.until() == null) {
                        return new Result(out, to, false, excused + 1); // paused or retired from here on
                    }
                    excused++;
                    cursor = covering.until().minusNanos(1); // the span's end is due again
                    continue;
                }
                out.add(new DueFire(jobKey, s.schedule().fireKey(due), due));
            }
        }
        return new Result(out, to, false, excused);
    }

    private static @Nullable Span covering(List<Span> spans, Instant t) {
        for (Span s : spans) {
            if (s.covers(t)) {
                return s;
            }
        }
        return null;
    }

    /** The next fire strictly after {@code t}, surviving a {@code nextAfter} that does not move forward. */
    static Optional<Instant> next(String jobKey, Schedule schedule, Instant t) {
        Optional<Instant> n = schedule.nextAfter(t);
        for (Duration nudge : NUDGES) {
            if (n.isEmpty() || n.get().isAfter(t)) {
                return n;
            }
            n = schedule.nextAfter(t.plus(nudge));
        }
        if (n.isEmpty() || n.get().isAfter(t)) {
            return n;
        }
        throw new IllegalStateException("the schedule of job '" + jobKey + "' (" + schedule.kind() + " "
                + schedule.expression() + ") does not move forward after " + t + ": its next fire is " + n.get());
    }
}
