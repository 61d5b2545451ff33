package dev.tenure.console;

import dev.tenure.db.OverdueFires;
import dev.tenure.db.TenureAdmin;
import java.util.LinkedHashMap;
import java.util.Map;

/** The JSON shape of each view, one place for every command. */
final class CliRows {

    private CliRows() {}

    static Map<String, Object> job(Views.Job j) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job", j.jobKey());
        m.put("kind", j.kind());
        m.put("held", j.held());
        m.put("owner", j.held() ? j.owner() : null);
        m.put("node", j.node());
        m.put("epoch", j.epoch());
        m.put("leaseLeftMillis", j.held() ? j.leaseLeft() : null);
        m.put("lastOutcome", j.lastStatus());
        m.put("lastFire", j.lastFireKey());
        m.put("lastStartedAt", j.lastStartedAt());
        m.put("firesLastHour", j.firesLastHour());
        return m;
    }

    /** A run, with its trace's URL when {@code traces} has a template. */
    static Map<String, Object> run(Views.Run r, TraceLink traces) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("fire", r.fireKey());
        m.put("missedFires", r.missed() ? r.missedFires() : null);
        m.put("runId", r.runId());
        m.put("owner", r.owner());
        m.put("node", r.node());
        m.put("epoch", r.epoch());
        m.put("status", r.status());
        m.put("attempt", r.attempt());
        m.put("previousStatus", r.previousStatus());
        m.put("startedAt", r.startedAt());
        m.put("finishedAt", r.finishedAt());
        m.put("durationMillis", r.duration());
        m.put("rotation", r.rotation());
        m.put("incident", r.incident());
        m.put("error", r.error());
        m.put("traceId", r.traceId());
        m.put("traceUrl", traces.url(r.traceId()).orElse(null));
        return m;
    }

    static Map<String, Object> missed(TenureAdmin.MissedFire f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job", f.jobKey());
        m.put("fire", f.fireKey());
        m.put("fires", f.fires());
        m.put("recordedAt", f.recordedAt());
        m.put("sweeper", f.sweeper());
        m.put("reason", f.reason());
        return m;
    }

    static Map<String, Object> schedule(TenureAdmin.ScheduleState s) {
        return schedule(s, null);
    }

    /**
     * A schedule; with {@code overdue}, the fires overdue now: {@code overdueNow} (a lower bound unless
     * {@code overdueExact}), {@code overdueSince}, {@code overdueFires} (the oldest fire keys); {@code overdue} stays
     * the sweeper's count at its last sweep.
     */
    static Map<String, Object> schedule(TenureAdmin.ScheduleState s, OverdueFires overdue) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job", s.jobKey());
        m.put("kind", s.kind());
        m.put("expression", s.expression());
        m.put("policy", s.policy());
        m.put("integration", s.integration());
        m.put("registeredBy", s.registeredBy());
        m.put("registeredAt", s.registeredAt());
        m.put("previousSchedule", s.previousSchedule());
        m.put("previousBy", s.previousBy());
        m.put("changedAt", s.changedAt());
        m.put("lastSuccessAt", s.lastSuccessAt());
        m.put("nextDueAt", s.nextDueAt());
        m.put("overdue", s.overdue());
        if (overdue != null) {
            m.put("overdueNow", overdue.count());
            m.put("overdueExact", overdue.exact());
            m.put("overdueSince", overdue.since());
            m.put("overdueFires", overdue.fireKeys());
        }
        m.put("missedLastHour", s.missedLastHour());
        m.put("missedTotal", s.missedTotal());
        m.put("lastMissedAt", s.lastMissedAt());
        m.put("sweptUntil", s.sweptUntil());
        m.put("sweptAt", s.sweptAt());
        m.put("sweptBy", s.sweptBy());
        m.put("application", s.application());
        m.put("state", s.state());
        m.put("stateSince", s.stateSince());
        m.put("stateReason", s.stateReason());
        m.put("stateBy", s.stateBy());
        m.put("version", s.version());
        m.put("versionFrom", s.versionFrom());
        m.put("seenAt", s.seenAt());
        m.put("checkAt", s.checkAt());
        m.put("sweepError", s.sweepError());
        m.put("attention", ScheduleSection.attention(s, overdue));
        return m;
    }

    static Map<String, Object> leader(Views.Leader l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("role", l.role());
        m.put("leader", l.leader());
        m.put("node", l.leaderNode());
        m.put("epoch", l.epoch());
        m.put("since", l.since());
        m.put("leaseLeftMillis", l.leaseLeft());
        return m;
    }
}
