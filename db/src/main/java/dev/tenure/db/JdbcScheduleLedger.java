package dev.tenure.db;

import dev.tenure.MissedFirePolicy;
import dev.tenure.spi.ScheduleLedger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

// Over 400 lines: the ScheduleLedger SPI's methods (register, due, settle, swept, pause, resume, retire, catch-ups),
// each one transaction of one to three statements that share the ledger's locks; the SQL is ScheduleSql.
/**
 * The ledger of schedules on Postgres: {@code job_schedule} (one row per job: its current version, state, policy and
 * where its account stands), {@code job_schedule_version}, {@code job_schedule_span}, {@code job_catch_up}, and MISSED
 * rows in {@code job_run}. Every instant that decides what is due is the database's clock. Thread-safe; holds no
 * resources of its own.
 *
 * <p><b>Why recording MISSED cannot hide a run, and never waits.</b> {@link #settle} locks the jobs' rows in
 * {@code job_execution} FOR NO KEY UPDATE SKIP LOCKED first (a job whose row is busy waits for the next sweep), which a
 * claim (FOR UPDATE) waits for and a fence check (FOR KEY SHARE) does not. It then locks the existing run rows of the
 * fires SKIP LOCKED: a run row locked by an open transaction (a holder completing its fire, or stalled before its
 * commit) is left for the next sweep, so one stuck session delays only its own fire. It records a fire MISSED only
 * where no run of it exists, or where its run was ABANDONED, REJECTED_STALE, or is RUNNING under a lease that has
 * ended; in that last case the holder is fenced off in the same transaction (the job's epoch moves on), after the job's
 * row is locked FOR UPDATE SKIP LOCKED: an open fenced transaction of the holder (its KEY SHARE lock) makes the fire
 * wait for the next sweep, so the holder's writes commit before the fence moves on or not at all, as with a claim.
 */
final class JdbcScheduleLedger implements ScheduleLedger {

    /** A lock the settle's statements may wait for at most: a backstop, since they skip locked rows. */
    private static final String LOCK_TIMEOUT = "1000";

    private final Jdbc jdbc;
    private final ScheduleSql sql;

    /** The ledger on {@code schema}, through {@code jdbc}: the query timeout of the lease store and the run ledger. */
    JdbcScheduleLedger(Jdbc jdbc, String schema) {
        this.jdbc = jdbc;
        this.sql = new ScheduleSql(TenureSchema.quoted(schema));
    }

    @Override
    public Registered register(ScheduleRow row) {
        String key = LedgerArgs.key(row.jobKey());
        return jdbc.inTransaction("register schedule", key, c -> {
            String now = databaseNow(c).toString();
            update(c, sql.insertIdle, key);
            Object[] policy = policy(row);
            if (update(
                            c,
                            sql.insertSchedule,
                            key,
                            row.kind(),
                            row.expression(),
                            policy[0],
                            policy[1],
                            policy[2],
                            policy[3],
                            policy[4],
                            policy[5],
                            policy[6],
                            policy[7],
                            now,
                            now,
                            now,
                            now,
                            row.firstFire() == null
                                    ? now
                                    : row.firstFire().minusMillis(1).toString())
                    == 1) {
                update(c, sql.insertVersion, key, 1, row.kind(), row.expression(), row.policyText(), policy[2], now);
                return new Registered(true, 1, Optional.empty(), null, false);
            }
            return registerExisting(c, row, key, now, policy);
        });
    }

    /** Policy values of {@code row} as the statements take them: text, integration, node, application, action, ... */
    private static Object[] policy(ScheduleRow row) {
        MissedFirePolicy p = row.policy();
        return new Object[] {
            row.policyText(),
            row.integration(),
            row.node() == null ? "unknown" : row.node(),
            row.application(),
            p.action().name(),
            p.maxCatchUps(),
            p.maxAge().toMillis(),
            p.grace().toMillis()
        };
    }

    /**
     * The registration of a job whose schedule is in the ledger already, in {@code c}'s transaction: the same schedule
     * refreshed, or a new version, and a RETIRED one active again.
     */
    private Registered registerExisting(Connection c, ScheduleRow row, String key, String now, Object[] policy)
            throws SQLException {
        ScheduleRow old;
        Instant at;
        int version;
        boolean retired;
        try (PreparedStatement ps = jdbc.prepare(c, sql.readSchedule)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                old = new ScheduleRow(
                        key,
                        rs.getString(9),
                        rs.getString(1),
                        rs.getString(2),
                        row.policy(),
                        rs.getString(3),
                        rs.getString(4),
                        rs.getString(5));
                at = Rows.instant(rs, 6);
                version = rs.getInt(7);
                retired = RETIRED.equals(rs.getString(8));
            }
        }
        if (retired) {
            update(c, sql.endSpans, now, key, RETIRED);
        }
        if (old.kind().equals(row.kind()) && old.expression().equals(row.expression())) {
            update(
                    c,
                    sql.refresh,
                    policy[0],
                    policy[1],
                    policy[2],
                    policy[3],
                    policy[4],
                    policy[5],
                    policy[6],
                    policy[7],
                    now,
                    now,
                    now,
                    now,
                    key);
            return new Registered(false, version, Optional.empty(), at, retired);
        }
        update(c, sql.endVersion, now, key, version);
        update(c, sql.insertVersion, key, version + 1, row.kind(), row.expression(), row.policyText(), policy[2], now);
        update(
                c,
                sql.replace,
                now,
                now,
                row.kind(),
                row.expression(),
                policy[0],
                policy[1],
                policy[2],
                policy[3],
                policy[4],
                policy[5],
                policy[6],
                policy[7],
                now,
                now,
                now,
                now,
                key);
        return new Registered(false, version + 1, Optional.of(old), at, retired);
    }

    /** Jobs one transaction of {@link #registerAll} registers at most. */
    static final int REGISTER_BATCH = 1000;

    /**
     * The registrations of {@code rows} in a few statements per {@link #REGISTER_BATCH} jobs, one transaction each:
     * the job rows and the new schedules inserted from arrays, the existing schedules read and locked at once (in key
     * order, as the inserts go, so two processes registering the same jobs never wait for each other in a cycle), the
     * unchanged ones refreshed in one statement; a changed or RETIRED schedule goes the way {@link #register} takes
     * it. Each answer is what {@link #register} would have answered. A list that names a job twice is registered one
     * job at a time.
     */
    @Override
    public List<Registered> registerAll(List<ScheduleRow> rows) {
        Set<String> keys = new HashSet<>();
        for (ScheduleRow r : rows) {
            if (!keys.add(LedgerArgs.key(r.jobKey()))) {
                List<Registered> out = new ArrayList<>(rows.size());
                rows.forEach(x -> out.add(register(x)));
                return out;
            }
        }
        List<Registered> out = new ArrayList<>(rows.size());
        for (int from = 0; from < rows.size(); from += REGISTER_BATCH) {
            List<ScheduleRow> chunk = rows.subList(from, Math.min(rows.size(), from + REGISTER_BATCH));
            out.addAll(jdbc.inTransaction(
                    "register schedules",
                    chunk.size() + " jobs from " + chunk.get(0).jobKey(),
                    c -> registerChunk(c, chunk)));
        }
        return out;
    }

    private List<Registered> registerChunk(Connection c, List<ScheduleRow> rows) throws SQLException {
        String now = databaseNow(c).toString();
        int n = rows.size();
        String[] keys = new String[n];
        String[] kinds = new String[n];
        String[] expressions = new String[n];
        String[] policies = new String[n];
        String[] integrations = new String[n];
        String[] nodes = new String[n];
        String[] applications = new String[n];
        String[] actions = new String[n];
        Integer[] maxCatchUps = new Integer[n];
        Long[] maxAges = new Long[n];
        Long[] graces = new Long[n];
        String[] from = new String[n];
        for (int i = 0; i < n; i++) {
            ScheduleRow r = rows.get(i);
            Object[] p = policy(r);
            keys[i] = r.jobKey();
            kinds[i] = r.kind();
            expressions[i] = r.expression();
            policies[i] = (String) p[0];
            integrations[i] = (String) p[1];
            nodes[i] = (String) p[2];
            applications[i] = (String) p[3];
            actions[i] = (String) p[4];
            maxCatchUps[i] = (Integer) p[5];
            maxAges[i] = (Long) p[6];
            graces[i] = (Long) p[7];
            from[i] = r.firstFire() == null ? now : r.firstFire().minusMillis(1).toString();
        }
        update(c, sql.insertIdleMany, c.createArrayOf("text", keys));
        Set<String> created = new HashSet<>();
        try (PreparedStatement ps = jdbc.prepare(c, sql.insertScheduleMany)) {
            Object[] values = {
                c.createArrayOf("text", keys),
                c.createArrayOf("text", kinds),
                c.createArrayOf("text", expressions),
                c.createArrayOf("text", policies),
                c.createArrayOf("text", integrations),
                c.createArrayOf("text", nodes),
                c.createArrayOf("text", applications),
                c.createArrayOf("text", actions),
                c.createArrayOf("int4", maxCatchUps),
                c.createArrayOf("int8", maxAges),
                c.createArrayOf("int8", graces),
                c.createArrayOf("timestamptz", from),
                now
            };
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    created.add(rs.getString(1));
                }
            }
        }
        List<Integer> fresh = new ArrayList<>();
        List<Integer> known = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            (created.contains(keys[i]) ? fresh : known).add(i);
        }
        if (!fresh.isEmpty()) {
            update(
                    c,
                    sql.insertFirstVersions,
                    now,
                    c.createArrayOf("text", pick(keys, fresh)),
                    c.createArrayOf("text", pick(kinds, fresh)),
                    c.createArrayOf("text", pick(expressions, fresh)),
                    c.createArrayOf("text", pick(policies, fresh)),
                    c.createArrayOf("text", pick(nodes, fresh)));
        }
        Registered[] answers = new Registered[n];
        fresh.forEach(i -> answers[i] = new Registered(true, 1, Optional.empty(), null, false));
        if (!known.isEmpty()) {
            Map<String, Stored> stored = new HashMap<>();
            try (PreparedStatement ps = jdbc.prepare(c, sql.readSchedules)) {
                ps.setArray(1, c.createArrayOf("text", pick(keys, known)));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        stored.put(
                                rs.getString(10),
                                new Stored(
                                        rs.getString(1),
                                        rs.getString(2),
                                        rs.getInt(7),
                                        RETIRED.equals(rs.getString(8)),
                                        Rows.instant(rs, 6)));
                    }
                }
            }
            List<Integer> same = new ArrayList<>();
            for (int i : known) {
                Stored st = stored.get(keys[i]);
                if (st != null
                        && st.kind().equals(kinds[i])
                        && st.expression().equals(expressions[i])
                        && !st.retired()) {
                    same.add(i);
                    answers[i] = new Registered(false, st.version(), Optional.empty(), st.registeredAt(), false);
                } else {
                    answers[i] = registerExisting(c, rows.get(i), keys[i], now, policy(rows.get(i)));
                }
            }
            if (!same.isEmpty()) {
                update(
                        c,
                        sql.refreshMany,
                        c.createArrayOf("text", pick(keys, same)),
                        c.createArrayOf("text", pick(policies, same)),
                        c.createArrayOf("text", pick(integrations, same)),
                        c.createArrayOf("text", pick(nodes, same)),
                        c.createArrayOf("text", pick(applications, same)),
                        c.createArrayOf("text", pick(actions, same)),
                        c.createArrayOf("int4", pick(maxCatchUps, same)),
                        c.createArrayOf("int8", pick(maxAges, same)),
                        c.createArrayOf("int8", pick(graces, same)),
                        now);
            }
        }
        return List.of(answers);
    }

    /** A schedule as {@link #registerChunk} reads it back: enough to tell an unchanged, active one. */
    private record Stored(
            String kind,
            String expression,
            int version,
            boolean retired,
            @Nullable Instant registeredAt) {}

    /** The elements of {@code all} at {@code at}, in that order. */
    private static <T> T[] pick(T[] all, List<Integer> at) {
        T[] out = java.util.Arrays.copyOf(all, at.size());
        for (int i = 0; i < at.size(); i++) {
            out[i] = all[at.get(i)];
        }
        return out;
    }

    private Instant databaseNow(Connection c) throws SQLException {
        try (PreparedStatement ps = jdbc.prepare(c, sql.now);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            return Rows.at(rs, 1);
        }
    }

    private int update(Connection c, String statement, @Nullable Object... values) throws SQLException {
        try (PreparedStatement ps = jdbc.prepare(c, statement)) {
            for (int i = 0; i < values.length; i++) {
                ps.setObject(i + 1, values[i]);
            }
            return ps.executeUpdate();
        }
    }

    @Override
    public void seen(Collection<String> jobKeys, Duration every) {
        String[] keys = jobKeys.toArray(String[]::new);
        jdbc.run("mark schedules seen", "*", true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, sql.seen)) {
                ps.setArray(1, c.createArrayOf("text", keys));
                ps.setLong(2, every.toMillis());
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public Due due(String application, int limit) {
        return jdbc.run("read due schedules", "*", false, c -> {
            List<Object[]> read = new ArrayList<>();
            Instant now = null;
            Set<String> withHistory = new LinkedHashSet<>();
            try (PreparedStatement ps = jdbc.prepare(c, sql.due)) {
                ps.setString(1, application);
                ps.setInt(2, limit + 1);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        now = Rows.at(rs, 13);
                        if (rs.getString(1) == null) {
                            continue; // the one row of the clock when no schedule is due
                        }
                        read.add(new Object[] {
                            rs.getString(1),
                            rs.getString(2),
                            rs.getString(3),
                            rs.getInt(4),
                            rs.getString(5),
                            rs.getString(6),
                            Rows.instant(rs, 7),
                            new MissedFirePolicy(
                                    MissedFirePolicy.Action.valueOf(rs.getString(8)),
                                    rs.getInt(9),
                                    Duration.ofMillis(rs.getLong(10)),
                                    Duration.ofMillis(rs.getLong(11))),
                            Rows.at(rs, 12),
                            Rows.instant(rs, 14),
                            Rows.instant(rs, 15)
                        });
                        if (rs.getBoolean(16) || rs.getBoolean(17)) {
                            withHistory.add(rs.getString(1));
                        }
                    }
                }
            }
            if (now == null) {
                now = databaseNow(c);
            }
            boolean more = read.size() > limit;
            List<Object[]> taken = more ? read.subList(0, limit) : read;
            Map<String, List<Version>> versions = new HashMap<>();
            Map<String, List<Span>> spans = new HashMap<>();
            if (!withHistory.isEmpty()) {
                history(c, taken, withHistory, versions, spans);
            }
            List<Tracked> out = new ArrayList<>();
            for (Object[] r : taken) {
                String job = (String) r[0];
                out.add(new Tracked(
                        job,
                        (String) r[1],
                        (String) r[2],
                        (Integer) r[3],
                        (String) r[4],
                        (String) r[5],
                        (Instant) r[6],
                        (MissedFirePolicy) r[7],
                        (Instant) r[8],
                        versions.getOrDefault(job, List.of()),
                        spans.getOrDefault(job, List.of()),
                        (Instant) r[9],
                        (Instant) r[10]));
            }
            return new Due(now, out, more);
        });
    }

    /** The earlier versions and the spans that matter after each position, for the jobs that have some. */
    private void history(
            Connection c,
            List<Object[]> taken,
            Set<String> withHistory,
            Map<String, List<Version>> versions,
            Map<String, List<Span>> spans)
            throws SQLException {
        List<String> jobs = new ArrayList<>();
        List<String> since = new ArrayList<>();
        List<Integer> current = new ArrayList<>();
        for (Object[] r : taken) {
            if (withHistory.contains((String) r[0])) {
                jobs.add((String) r[0]);
                since.add(r[8].toString());
                current.add((Integer) r[3]);
            }
        }
        try (PreparedStatement ps = jdbc.prepare(c, sql.versions)) {
            ps.setArray(1, c.createArrayOf("text", jobs.toArray()));
            ps.setArray(2, c.createArrayOf("text", since.toArray()));
            ps.setArray(3, c.createArrayOf("int4", current.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    versions.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                            .add(new Version(
                                    rs.getInt(2),
                                    rs.getString(3),
                                    rs.getString(4),
                                    Rows.instant(rs, 5),
                                    Rows.at(rs, 6)));
                }
            }
        }
        try (PreparedStatement ps = jdbc.prepare(c, sql.spans)) {
            ps.setArray(1, c.createArrayOf("text", jobs.toArray()));
            ps.setArray(2, c.createArrayOf("text", since.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    spans.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                            .add(new Span(rs.getString(2), Rows.at(rs, 3), Rows.instant(rs, 4), rs.getString(5)));
                }
            }
        }
    }

    @Override
    public List<FireStatus> states(List<DueFire> fires) {
        String[] jobs = fires.stream().map(DueFire::jobKey).toArray(String[]::new);
        String[] keys = fires.stream().map(DueFire::fireKey).toArray(String[]::new);
        return jdbc.run("read fire states", "*", false, c -> {
            FireStatus[] out = new FireStatus[fires.size()];
            try (PreparedStatement ps = jdbc.prepare(c, sql.states)) {
                ps.setArray(1, c.createArrayOf("text", jobs));
                ps.setArray(2, c.createArrayOf("text", keys));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        int i = (int) rs.getLong(1) - 1;
                        out[i] =
                                new FireStatus(fires.get(i), state(rs.getString(2), rs.getBoolean(4)), rs.getString(3));
                    }
                }
            }
            return List.of(out);
        });
    }

    @Override
    public Map<String, List<RunState>> runsSince(Map<String, Instant> since) {
        List<String> jobs = new ArrayList<>();
        List<String> times = new ArrayList<>();
        since.forEach((job, at) -> {
            jobs.add(job);
            times.add(at.toString());
        });
        return jdbc.run("read runs since", "*", false, c -> {
            Map<String, List<RunState>> out = new HashMap<>();
            try (PreparedStatement ps = jdbc.prepare(c, sql.runsSince)) {
                ps.setArray(1, c.createArrayOf("text", jobs.toArray()));
                ps.setArray(2, c.createArrayOf("text", times.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.computeIfAbsent(rs.getString(1), k -> new ArrayList<>())
                                .add(new RunState(
                                        rs.getString(2), state(rs.getString(3), rs.getBoolean(5)), rs.getString(4)));
                    }
                }
            }
            return out;
        });
    }

    private static FireState state(@Nullable String status, boolean live) {
        if (status == null) {
            return FireState.NONE;
        }
        if (status.equals("RUNNING")) {
            return live ? FireState.RUNNING : FireState.RUNNING_LEASE_ENDED;
        }
        return FireState.valueOf(status);
    }

    @Override
    public Settled settle(
            List<Missed> missed, List<Summary> summaries, Function<Settled, List<SweepMark>> marks, String sweeper) {
        String owner = truncate(sweeper, LedgerArgs.MAX_ID_LENGTH);
        return jdbc.inTransaction("record missed fires", "*", c -> {
            Set<String> jobs = new LinkedHashSet<>();
            missed.forEach(m -> jobs.add(m.fire().jobKey()));
            summaries.forEach(s -> jobs.add(s.jobKey()));
            Map<String, String> running = new HashMap<>();
            Set<String> locked = lockJobs(c, jobs, running);
            Set<DueFire> recorded = new HashSet<>();
            List<Missed> candidates = missed.stream()
                    .filter(m -> locked.contains(m.fire().jobKey()))
                    .toList();
            if (!candidates.isEmpty()) {
                Set<List<String>> busy = busyRuns(c, candidates, running);
                List<Missed> free = candidates.stream()
                        .filter(m -> !busy.contains(
                                List.of(m.fire().jobKey(), m.fire().fireKey())))
                        .toList();
                recorded.addAll(record(c, free, owner));
            }
            List<Summary> written =
                    summaries.stream().filter(s -> locked.contains(s.jobKey())).toList();
            if (!written.isEmpty()) {
                try (PreparedStatement ps = jdbc.prepare(c, sql.summaries)) {
                    ps.setString(1, owner);
                    ps.setArray(
                            2,
                            c.createArrayOf(
                                    "text",
                                    written.stream().map(Summary::jobKey).toArray()));
                    ps.setArray(
                            3,
                            c.createArrayOf(
                                    "text",
                                    written.stream().map(Summary::fireKey).toArray()));
                    ps.setArray(
                            4,
                            c.createArrayOf(
                                    "text",
                                    written.stream()
                                            .map(s -> truncate(s.reason(), 2000))
                                            .toArray()));
                    ps.executeUpdate();
                }
            }
            Set<String> touched = new HashSet<>();
            recorded.forEach(f -> touched.add(f.jobKey()));
            written.forEach(w -> touched.add(w.jobKey()));
            if (!touched.isEmpty()) {
                try (PreparedStatement ps = jdbc.prepare(c, sql.touchJobs)) {
                    ps.setArray(1, c.createArrayOf("text", touched.toArray()));
                    ps.executeUpdate();
                }
            }
            Set<String> busyJobs = new HashSet<>(jobs);
            busyJobs.removeAll(locked);
            Settled settled = new Settled(recorded, busyJobs);
            swept(c, marks.apply(settled), sweeper);
            return settled;
        });
    }

    /** Locks the jobs' rows (SKIP LOCKED); puts the fire each locked row carries as running into {@code running}. */
    private Set<String> lockJobs(Connection c, Set<String> jobs, Map<String, String> running) throws SQLException {
        Set<String> locked = new HashSet<>();
        try (PreparedStatement ps = jdbc.prepare(c, sql.lockJobs)) {
            ps.setString(1, LOCK_TIMEOUT);
            ps.setArray(2, c.createArrayOf("text", jobs.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    locked.add(rs.getString(1));
                    String fire = rs.getString(2);
                    if (fire != null) {
                        running.put(rs.getString(1), fire);
                    }
                }
            }
        }
        return locked;
    }

    /** The run rows of these fires that exist but that an open transaction holds: they are left alone. */
    /**
     * The fires to leave for the next sweep: those whose run row an open transaction holds, and RUNNING ones whose job
     * has an open fenced transaction (the holder's fence check passed; its writes commit before the fence moves on, or
     * not at all, as with a claim).
     */
    private Set<List<String>> busyRuns(Connection c, List<Missed> fires, Map<String, String> running)
            throws SQLException {
        Object[] jobs = fires.stream().map(m -> m.fire().jobKey()).toArray();
        Object[] keys = fires.stream().map(m -> m.fire().fireKey()).toArray();
        Map<List<String>, String> existing = runs(c, sql.existingRuns, jobs, keys);
        Map<List<String>, String> locked = existing.isEmpty() ? new HashMap<>() : runs(c, sql.lockRuns, jobs, keys);
        Set<List<String>> busy = new HashSet<>(existing.keySet());
        busy.removeAll(locked.keySet());
        // a fire the job row carries as running (its run row is written at its end) counts as a RUNNING row
        for (Missed m : fires) {
            List<String> run = List.of(m.fire().jobKey(), m.fire().fireKey());
            if (m.fire().fireKey().equals(running.get(m.fire().jobKey())) && !busy.contains(run)) {
                locked.put(run, "RUNNING");
            }
        }
        Set<String> toFence = new HashSet<>();
        locked.forEach((run, status) -> {
            if ("RUNNING".equals(status)) {
                toFence.add(run.get(0));
            }
        });
        if (!toFence.isEmpty()) {
            Set<String> free = new HashSet<>();
            try (PreparedStatement ps = jdbc.prepare(c, sql.lockForFence)) {
                ps.setArray(1, c.createArrayOf("text", toFence.toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        free.add(rs.getString(1));
                    }
                }
            }
            locked.forEach((run, status) -> {
                if ("RUNNING".equals(status) && !free.contains(run.get(0))) {
                    busy.add(run);
                }
            });
        }
        return busy;
    }

    private Map<List<String>, String> runs(Connection c, String statement, Object[] jobs, Object[] keys)
            throws SQLException {
        Map<List<String>, String> out = new HashMap<>();
        try (PreparedStatement ps = jdbc.prepare(c, statement)) {
            ps.setArray(1, c.createArrayOf("text", jobs));
            ps.setArray(2, c.createArrayOf("text", keys));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.put(List.of(rs.getString(1), rs.getString(2)), rs.getString(3));
                }
            }
        }
        return out;
    }

    /** Records the fires MISSED and fences off the holders of RUNNING runs among them; returns those recorded. */
    private Set<DueFire> record(Connection c, List<Missed> fires, String owner) throws SQLException {
        Set<DueFire> out = new HashSet<>();
        if (fires.isEmpty()) {
            return out;
        }
        Map<List<String>, DueFire> byKey = new HashMap<>();
        fires.forEach(m -> byKey.put(List.of(m.fire().jobKey(), m.fire().fireKey()), m.fire()));
        List<String> fencedJobs = new ArrayList<>();
        List<Long> fencedEpochs = new ArrayList<>();
        try (PreparedStatement ps = jdbc.prepare(c, sql.recordMissed)) {
            ps.setString(1, owner);
            ps.setArray(
                    2,
                    c.createArrayOf(
                            "text", fires.stream().map(m -> m.fire().jobKey()).toArray()));
            ps.setArray(
                    3,
                    c.createArrayOf(
                            "text", fires.stream().map(m -> m.fire().fireKey()).toArray()));
            ps.setArray(
                    4,
                    c.createArrayOf(
                            "text",
                            fires.stream().map(m -> truncate(m.reason(), 2000)).toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    DueFire f = byKey.get(List.of(rs.getString(1), rs.getString(2)));
                    if (f != null) {
                        out.add(f);
                    }
                    if ("RUNNING".equals(rs.getString(4))) {
                        fencedJobs.add(rs.getString(1));
                        fencedEpochs.add(rs.getLong(3));
                    }
                }
            }
        }
        if (!fencedJobs.isEmpty()) {
            try (PreparedStatement ps = jdbc.prepare(c, sql.fence)) {
                ps.setArray(1, c.createArrayOf("text", fencedJobs.toArray()));
                ps.setArray(2, c.createArrayOf("int8", fencedEpochs.toArray()));
                ps.executeUpdate();
            }
        }
        return out;
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }

    @Override
    public void swept(List<SweepMark> marks, String sweeper) {
        if (marks.isEmpty()) {
            return;
        }
        jdbc.run("record sweep", "*", true, c -> {
            swept(c, marks, sweeper);
            return marks.size();
        });
    }

    private void swept(Connection c, List<SweepMark> marks, String sweeper) throws SQLException {
        if (marks.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = jdbc.prepare(c, sql.swept)) {
            ps.setString(1, truncate(sweeper, LedgerArgs.MAX_ID_LENGTH));
            ps.setArray(
                    2,
                    c.createArrayOf(
                            "text", marks.stream().map(SweepMark::jobKey).toArray()));
            ps.setArray(
                    3,
                    c.createArrayOf(
                            "int4", marks.stream().map(SweepMark::version).toArray()));
            ps.setArray(
                    4,
                    c.createArrayOf("text", marks.stream().map(SweepMark::state).toArray()));
            ps.setArray(
                    5,
                    c.createArrayOf(
                            "text",
                            marks.stream().map(m -> text(m.sweptUntil())).toArray()));
            ps.setArray(
                    6,
                    c.createArrayOf(
                            "text", marks.stream().map(m -> text(m.checkAt())).toArray()));
            ps.setArray(
                    7,
                    c.createArrayOf(
                            "text", marks.stream().map(m -> text(m.nextDue())).toArray()));
            ps.setArray(
                    8,
                    c.createArrayOf(
                            "int4", marks.stream().map(SweepMark::overdue).toArray()));
            ps.setArray(
                    9,
                    c.createArrayOf(
                            "int8", marks.stream().map(SweepMark::missed).toArray()));
            ps.setArray(
                    10,
                    c.createArrayOf(
                            "text",
                            marks.stream()
                                    .map(m -> m.error() == null ? null : truncate(m.error(), 1000))
                                    .toArray()));
            ps.executeUpdate();
        }
    }

    private static @Nullable String text(@Nullable Instant t) {
        return t == null ? null : t.toString();
    }

    @Override
    public void pause(String jobKey, Instant from, String reason, String by) {
        String key = LedgerArgs.key(jobKey);
        String r = truncate(reason, 500);
        String b = truncate(by, LedgerArgs.MAX_ID_LENGTH);
        jdbc.run(
                "pause schedule",
                key,
                true,
                c -> update(c, sql.pause, from.toString(), r, b, key, from.toString(), r, b));
    }

    @Override
    public void resume(String jobKey, Instant at, String by) {
        String key = LedgerArgs.key(jobKey);
        String b = truncate(by, LedgerArgs.MAX_ID_LENGTH);
        jdbc.run(
                "resume schedule",
                key,
                true,
                c -> update(c, sql.resume, at.toString(), b, at.toString(), key, at.toString()));
    }

    @Override
    public List<String> retireUnseen(Duration unseenFor, String by) {
        String b = truncate(by, LedgerArgs.MAX_ID_LENGTH);
        String reason = "no live process registered it for " + unseenFor;
        return jdbc.run("retire schedules", "*", true, c -> {
            List<String> out = new ArrayList<>();
            try (PreparedStatement ps = jdbc.prepare(c, sql.retire)) {
                ps.setString(1, unseenFor.toString());
                ps.setString(2, b);
                ps.setLong(3, unseenFor.toMillis());
                ps.setString(4, reason);
                ps.setString(5, b);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getString(1));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public List<Unswept> unswept(Duration behind, int limit) {
        return jdbc.run("list unswept schedules", "*", false, c -> {
            List<Unswept> out = new ArrayList<>();
            try (PreparedStatement ps = jdbc.prepare(c, sql.unswept)) {
                ps.setLong(1, behind.toMillis());
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Unswept(rs.getString(1), rs.getString(2), Rows.instant(rs, 3), Rows.at(rs, 4)));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public void requestCatchUps(List<DueFire> fires, String by) {
        if (fires.isEmpty()) {
            return;
        }
        jdbc.run("request catch-ups", "*", true, c -> {
            try (PreparedStatement ps = jdbc.prepare(c, sql.requestCatchUps)) {
                ps.setString(1, truncate(by, LedgerArgs.MAX_ID_LENGTH));
                ps.setArray(
                        2,
                        c.createArrayOf(
                                "text", fires.stream().map(DueFire::jobKey).toArray()));
                ps.setArray(
                        3,
                        c.createArrayOf(
                                "text", fires.stream().map(DueFire::fireKey).toArray()));
                ps.setArray(
                        4,
                        c.createArrayOf(
                                "text",
                                fires.stream().map(f -> f.dueAt().toString()).toArray()));
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public List<DueFire> takeCatchUps(Collection<String> jobKeys, int limit) {
        Object[] keys = jobKeys.toArray();
        return jdbc.run("take catch-ups", "*", true, c -> {
            List<DueFire> out = new ArrayList<>();
            try (PreparedStatement ps = jdbc.prepare(c, sql.takeCatchUps)) {
                ps.setArray(1, c.createArrayOf("text", keys));
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new DueFire(rs.getString(1), rs.getString(2), Rows.at(rs, 3)));
                    }
                }
            }
            return out;
        });
    }
}
