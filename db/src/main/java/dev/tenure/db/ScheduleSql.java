package dev.tenure.db;

/**
 * The SQL of {@link JdbcScheduleLedger}, with the schema written into every table name and the database clock
 * ({@code clock_timestamp()}) for every time. One instance per schema; immutable.
 */
final class ScheduleSql {

    private static final String MICROS = "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint";

    final String now = "SELECT clock_timestamp()";
    final String insertIdle;
    /** {@link #insertIdle} for many jobs: 1 jobs (text[]), in key order. */
    final String insertIdleMany;

    final String insertSchedule;
    /** {@link #insertSchedule} for many jobs from arrays, in key order; returns the jobs it inserted. */
    final String insertScheduleMany;
    /** Version 1 of many new schedules: 1 jobs, 2 kinds, 3 expressions, 4 policies, 5 nodes, 6 valid from. */
    final String insertFirstVersions;
    /** {@link #readSchedule} for many jobs: 1 jobs (text[]); locked in key order. */
    final String readSchedules;
    /** {@link #refresh} for many jobs whose schedule is the same and not RETIRED; see the constructor. */
    final String refreshMany;

    final String insertVersion;
    final String readSchedule;
    final String refresh;
    final String endVersion;
    final String replace;
    final String endSpans;
    final String seen;
    final String due;
    final String versions;
    final String spans;
    final String states;
    final String runsSince;
    final String lockJobs;
    final String existingRuns;
    final String lockRuns;
    final String lockForFence;
    final String recordMissed;
    final String fence;
    final String summaries;
    final String touchJobs;
    final String swept;
    final String pause;
    final String resume;
    final String retire;
    final String unswept;
    final String requestCatchUps;
    final String takeCatchUps;

    ScheduleSql(String q) {
        String je = q + ".job_execution";
        String jr = q + ".job_run";
        String js = q + ".job_schedule";
        String jsv = q + ".job_schedule_version";
        String jss = q + ".job_schedule_span";
        String jcu = q + ".job_catch_up";
        insertIdle = "INSERT INTO %s (job_key) VALUES (?) ON CONFLICT (job_key) DO NOTHING".formatted(je);
        insertIdleMany = """
                INSERT INTO %s (job_key) SELECT k FROM unnest(?::text[]) AS k ORDER BY k
                ON CONFLICT (job_key) DO NOTHING""".formatted(je);
        // arrays: 1 jobs, 2 kinds, 3 expressions, 4 policies, 5 integrations, 6 nodes, 7 applications, 8 actions,
        // 9 max catch-ups, 10 max ages ms, 11 graces ms, 12 accounted-from; then 13 now
        insertScheduleMany = """
                INSERT INTO %s (job_key, kind, expression, policy, integration, registered_by, application,
                    policy_action, max_catch_ups, max_age_ms, grace_ms, version, version_from, registered_at, seen_at,
                    check_at, swept_until)
                SELECT q.job_key, q.kind, q.expression, q.policy, q.integration, q.node, q.application, q.action,
                    q.max_catch_ups, q.max_age_ms, q.grace_ms, 1, n.now, n.now, n.now, n.now, q.swept_until
                FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                    ?::int[], ?::bigint[], ?::bigint[], ?::timestamptz[]) AS q(job_key, kind, expression, policy,
                    integration, node, application, action, max_catch_ups, max_age_ms, grace_ms, swept_until),
                    (SELECT ?::timestamptz AS now) n
                ORDER BY q.job_key
                ON CONFLICT (job_key) DO NOTHING RETURNING job_key""".formatted(js);
        insertFirstVersions = """
                INSERT INTO %s (job_key, version, kind, expression, policy, registered_by, valid_from)
                SELECT q.job_key, 1, q.kind, q.expression, q.policy, q.node, ?::timestamptz
                FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[])
                    AS q(job_key, kind, expression, policy, node)
                ORDER BY q.job_key ON CONFLICT (job_key, version) DO NOTHING""".formatted(jsv);
        readSchedules = """
                SELECT kind, expression, policy, integration, registered_by, registered_at, version, state, application,
                    job_key
                FROM %s WHERE job_key = ANY(?) ORDER BY job_key FOR UPDATE""".formatted(js);
        // the same schedules again, none RETIRED (refresh's CASEs for that): arrays 1 jobs, 2 policies,
        // 3 integrations, 4 nodes, 5 applications, 6 actions, 7 max catch-ups, 8 max ages, 9 graces; 10 now
        refreshMany = """
                UPDATE %s AS s SET policy = q.policy, integration = q.integration, registered_by = q.node,
                    application = q.application, policy_action = q.action, max_catch_ups = q.max_catch_ups,
                    max_age_ms = q.max_age_ms, grace_ms = q.grace_ms, registered_at = n.now, seen_at = n.now,
                    check_at = coalesce(s.check_at, n.now)
                FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::bigint[],
                    ?::bigint[]) AS q(job_key, policy, integration, node, application, action, max_catch_ups,
                    max_age_ms, grace_ms), (SELECT ?::timestamptz AS now) n
                WHERE s.job_key = q.job_key AND s.state <> 'RETIRED'""".formatted(js);
        // 1 job, 2 kind, 3 expression, 4 policy, 5 integration, 6 node, 7 application, 8 action, 9 max catch-ups,
        // 10 max age ms, 11 grace ms, 12 now
        insertSchedule = """
                INSERT INTO %s (job_key, kind, expression, policy, integration, registered_by, application,
                    policy_action, max_catch_ups, max_age_ms, grace_ms, version, version_from, registered_at, seen_at,
                    check_at, swept_until)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?::timestamptz, ?::timestamptz, ?::timestamptz,
                    ?::timestamptz, ?::timestamptz)
                ON CONFLICT (job_key) DO NOTHING""".formatted(js);
        // 1 job, 2 version, 3 kind, 4 expression, 5 policy, 6 node, 7 valid from
        insertVersion = """
                INSERT INTO %s (job_key, version, kind, expression, policy, registered_by, valid_from)
                VALUES (?, ?, ?, ?, ?, ?, ?::timestamptz) ON CONFLICT (job_key, version) DO NOTHING""".formatted(jsv);
        readSchedule = """
                SELECT kind, expression, policy, integration, registered_by, registered_at, version, state, application
                FROM %s WHERE job_key = ? FOR UPDATE""".formatted(js);
        // the same schedule again: 1 policy, 2 integration, 3 node, 4 application, 5 action, 6 max catch-ups,
        // 7 max age, 8 grace, 9 now, 10 now, 11 now, 12 now, 13 job
        refresh = """
                UPDATE %s SET policy = ?, integration = ?, registered_by = ?, application = ?, policy_action = ?,
                    max_catch_ups = ?, max_age_ms = ?, grace_ms = ?, registered_at = ?::timestamptz,
                    seen_at = ?::timestamptz,
                    check_at = CASE WHEN state = 'RETIRED' OR check_at IS NULL THEN ?::timestamptz ELSE check_at END,
                    state_since = CASE WHEN state = 'RETIRED' THEN ?::timestamptz ELSE state_since END,
                    state_reason = CASE WHEN state = 'RETIRED' THEN NULL ELSE state_reason END,
                    state = CASE WHEN state = 'RETIRED' THEN 'ACTIVE' ELSE state END
                WHERE job_key = ?""".formatted(js);
        // 1 until, 2 job, 3 version
        endVersion = "UPDATE %s SET valid_until = ?::timestamptz WHERE job_key = ? AND version = ?".formatted(jsv);
        // a new version: 1 kind, 2 expression, then as refresh from 1 policy ... 12 now; 13 job
        replace = """
                UPDATE %s SET previous_kind = kind, previous_expression = expression, previous_by = registered_by,
                    changed_at = ?::timestamptz, version = version + 1, version_from = ?::timestamptz,
                    kind = ?, expression = ?, policy = ?, integration = ?, registered_by = ?, application = ?,
                    policy_action = ?, max_catch_ups = ?, max_age_ms = ?, grace_ms = ?, registered_at = ?::timestamptz,
                    seen_at = ?::timestamptz, check_at = ?::timestamptz,
                    state_since = CASE WHEN state = 'RETIRED' THEN ?::timestamptz ELSE state_since END,
                    state_reason = CASE WHEN state = 'RETIRED' THEN NULL ELSE state_reason END,
                    state = CASE WHEN state = 'RETIRED' THEN 'ACTIVE' ELSE state END
                WHERE job_key = ?""".formatted(js);
        // 1 until, 2 job, 3 state
        endSpans = "UPDATE %s SET until_at = ?::timestamptz WHERE job_key = ? AND until_at IS NULL AND state = ?"
                .formatted(jss);
        // 1 jobs, 2 every ms
        seen = """
                UPDATE %s SET seen_at = clock_timestamp() WHERE job_key = ANY(?)
                AND (seen_at IS NULL OR seen_at < clock_timestamp() - ? * interval '1 millisecond')""".formatted(js);
        // 1 application, 2 limit + 1
        due = """
                WITH t AS (SELECT clock_timestamp() AS now),
                ready AS (SELECT s.* FROM %1$s s, t WHERE s.application = ?
                    AND (s.state <> 'RETIRED' OR s.swept_until < s.state_since)
                    AND s.check_at <= t.now ORDER BY s.check_at LIMIT ?)
                SELECT r.job_key, r.application, r.state, r.version, r.kind, r.expression, r.version_from,
                    r.policy_action, r.max_catch_ups, r.max_age_ms, r.grace_ms, r.swept_until, t.now, r.seen_at, r.swept_at,
                    EXISTS (SELECT 1 FROM %2$s v WHERE v.job_key = r.job_key AND v.version < r.version
                        AND v.valid_until > r.swept_until),
                    EXISTS (SELECT 1 FROM %3$s p WHERE p.job_key = r.job_key
                        AND (p.until_at IS NULL OR p.until_at > r.swept_until))
                FROM t LEFT JOIN ready r ON true ORDER BY r.check_at""".formatted(js, jsv, jss);
        // 1 jobs, 2 positions, 3 current versions
        versions = """
                SELECT v.job_key, v.version, v.kind, v.expression, v.valid_from, v.valid_until
                FROM unnest(?::text[], ?::timestamptz[], ?::int[]) AS q(job_key, since, current)
                JOIN %s v ON v.job_key = q.job_key AND v.version < q.current AND v.valid_until > q.since
                ORDER BY v.job_key, v.version""".formatted(jsv);
        // 1 jobs, 2 positions
        spans = """
                SELECT p.job_key, p.state, p.from_at, p.until_at, p.reason
                FROM unnest(?::text[], ?::timestamptz[]) AS q(job_key, since)
                JOIN %s p ON p.job_key = q.job_key AND (p.until_at IS NULL OR p.until_at > q.since)
                ORDER BY p.job_key, p.from_at""".formatted(jss);
        String live = "(je.fencing_token = r.epoch AND je.owner = r.owner AND je.lease_expires_at > clock_timestamp())";
        // runs as job_runs shows them: a running fire is carried by its job row (schema version 8)
        String runs = q + ".job_runs";
        states = """
                SELECT d.ord, r.status, r.error, %3$s
                FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS d(job_key, fire_key, ord)
                LEFT JOIN %1$s r ON r.job_key = d.job_key AND r.fire_key = d.fire_key
                LEFT JOIN %2$s je ON je.job_key = d.job_key""".formatted(runs, je, live);
        runsSince = """
                SELECT q.job_key, r.fire_key, r.status, r.error, %3$s
                FROM unnest(?::text[], ?::timestamptz[]) AS q(job_key, since)
                JOIN %1$s r ON r.job_key = q.job_key AND r.started_at >= q.since
                LEFT JOIN %2$s je ON je.job_key = q.job_key""".formatted(runs, je, live);
        // the lock timeout of the settle's transaction is set first, in the same statement (a backstop: it skips locks)
        lockJobs = """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt)
                SELECT je.job_key, CASE WHEN je.status = 'RUNNING' AND je.current_run_id IS NOT NULL THEN je.run_fire_key END
                FROM %s je, cfg WHERE je.job_key = ANY(?) FOR NO KEY UPDATE OF je SKIP LOCKED""".formatted(je);
        existingRuns = """
                SELECT r.job_key, r.fire_key, r.status FROM unnest(?::text[], ?::text[]) AS q(job_key, fire_key)
                JOIN %s r ON r.job_key = q.job_key AND r.fire_key = q.fire_key""".formatted(jr);
        lockRuns = existingRuns + " FOR UPDATE OF r SKIP LOCKED";
        // a job whose RUNNING run is about to be fenced off: FOR UPDATE, which an open fenced transaction's KEY SHARE
        // lock holds back, as it holds back a claim (SKIP LOCKED: the job waits for the next sweep instead)
        lockForFence = "SELECT job_key FROM %s WHERE job_key = ANY(?) FOR UPDATE SKIP LOCKED".formatted(je);
        // 1 sweeper, 2 jobs, 3 fires, 4 reasons. A fire the job row carries as running (schema version 8) is recorded
        // only once its holder's lease has ended: its run is kept as the previous one (RUNNING), under the holder's
        // epoch, which the caller then fences off. Otherwise a row is turned MISSED only where it exists and is
        // ABANDONED, REJECTED_STALE or RUNNING (a version before 8 wrote that) under a lease that has ended; epoch is
        // kept, previous_status tells what it was. The job rows are locked by this transaction (lockJobs).
        recordMissed = """
                INSERT INTO %1$s AS r (run_id, job_key, fire_key, epoch, owner, status, started_at, finished_at, error,
                    previous_run_id, previous_status)
                SELECT gen_random_uuid(), m.job_key, m.fire_key, je.fencing_token, ?, 'MISSED', clock_timestamp(),
                    clock_timestamp(), m.reason, CASE WHEN running THEN je.current_run_id END,
                    CASE WHEN running THEN 'RUNNING' END
                FROM unnest(?::text[], ?::text[], ?::text[]) AS m(job_key, fire_key, reason)
                JOIN %2$s je ON je.job_key = m.job_key
                CROSS JOIN LATERAL (SELECT je.status = 'RUNNING' AND je.current_run_id IS NOT NULL
                    AND je.run_fire_key = m.fire_key AND NOT EXISTS (SELECT 1 FROM %1$s x
                        WHERE x.run_id = je.current_run_id) AS running) c
                WHERE NOT (c.running AND coalesce(je.lease_expires_at > clock_timestamp(), false))
                ON CONFLICT (job_key, fire_key) DO UPDATE SET status = 'MISSED', run_id = excluded.run_id,
                    owner = excluded.owner, previous_run_id = coalesce(excluded.previous_run_id, r.run_id),
                    previous_status = coalesce(excluded.previous_status, r.status),
                    epoch = CASE WHEN excluded.previous_status = 'RUNNING' THEN excluded.epoch ELSE r.epoch END,
                    finished_at = clock_timestamp(), error = excluded.error
                WHERE (excluded.previous_status = 'RUNNING' AND r.status NOT IN ('COMPLETED', 'MISSED'))
                    OR r.status IN ('ABANDONED', 'REJECTED_STALE')
                    OR (r.status = 'RUNNING' AND NOT EXISTS (
                    SELECT 1 FROM %2$s x WHERE x.job_key = r.job_key AND x.fencing_token = r.epoch
                    AND x.owner = r.owner AND x.lease_expires_at > clock_timestamp()))
                RETURNING r.job_key, r.fire_key, r.epoch, r.previous_status""".formatted(jr, je);
        // A RUNNING run recorded MISSED: its holder's epoch ends here, so that its later fenced writes and its finish
        // are refused. Only while the holder's lease is still over (this transaction holds the row). 1 jobs, 2 epochs
        fence = """
                UPDATE %s AS je SET fencing_token = greatest(je.fencing_token + 1, %s), owner = NULL, node = NULL,
                    status = 'IDLE', lease_expires_at = NULL, %3$s, updated_at = clock_timestamp()
                FROM unnest(?::text[], ?::bigint[]) AS m(job_key, epoch)
                WHERE je.job_key = m.job_key AND je.fencing_token = m.epoch
                    AND (je.lease_expires_at IS NULL OR je.lease_expires_at <= clock_timestamp())""".formatted(je, MICROS, Sql.NO_RUN);
        // The job rows of fires just recorded MISSED get a new version (a HOT update of updated_at): a claim of such a
        // fire whose snapshot predates this transaction's commit, and which waited for the row, then sees a version
        // its snapshot does not show, and reads the fire's state again (Sql.SECOND_READ). 1 jobs
        touchJobs = "UPDATE %s SET updated_at = clock_timestamp() WHERE job_key = ANY(?)".formatted(je);
        // 1 sweeper, 2 jobs, 3 fire keys, 4 reasons
        summaries = """
                INSERT INTO %1$s (run_id, job_key, fire_key, epoch, owner, status, started_at, finished_at, error)
                SELECT gen_random_uuid(), m.job_key, m.fire_key, je.fencing_token, ?, 'MISSED', clock_timestamp(),
                    clock_timestamp(), m.reason
                FROM unnest(?::text[], ?::text[], ?::text[]) AS m(job_key, fire_key, reason)
                JOIN %2$s je ON je.job_key = m.job_key
                ON CONFLICT (job_key, fire_key) DO NOTHING""".formatted(jr, je);
        // 1 sweeper, 2 jobs, 3 versions, 4 states, 5 positions, 6 check times, 7 next fires, 8 overdue, 9 missed,
        // 10 errors. A schedule whose version or state changed since the sweep read it is looked at again at once.
        swept = """
                UPDATE %s AS s SET swept_until = greatest(s.swept_until, m.until),
                    check_at = CASE WHEN s.version = m.version AND s.state = m.state THEN m.check_at
                        ELSE clock_timestamp() END,
                    next_due_at = m.next, overdue = m.overdue, missed_total = s.missed_total + m.missed,
                    last_missed_at = CASE WHEN m.missed > 0 THEN clock_timestamp() ELSE s.last_missed_at END,
                    swept_at = clock_timestamp(), swept_by = ?, sweep_error = m.error
                FROM unnest(?::text[], ?::int[], ?::text[], ?::timestamptz[], ?::timestamptz[], ?::timestamptz[],
                    ?::int[], ?::bigint[], ?::text[])
                    AS m(job_key, version, state, until, check_at, next, overdue, missed, error)
                WHERE s.job_key = m.job_key""".formatted(js);
        // 1 from, 2 reason, 3 by, 4 job; then 5 from, 6 reason, 7 by
        pause = """
                WITH s AS (UPDATE %1$s SET state = 'PAUSED', state_since = ?::timestamptz, state_reason = ?,
                    state_by = ?, check_at = clock_timestamp() WHERE job_key = ? AND state = 'ACTIVE'
                    RETURNING job_key)
                INSERT INTO %2$s (job_key, state, from_at, reason, set_by)
                SELECT job_key, 'PAUSED', ?::timestamptz, ?, ? FROM s ON CONFLICT DO NOTHING""".formatted(js, jss);
        // 1 at, 2 by, 3 at, 4 job; then 5 at
        resume = """
                WITH s AS (UPDATE %1$s SET state = 'ACTIVE', state_since = ?::timestamptz, state_reason = NULL,
                    state_by = ?, check_at = ?::timestamptz WHERE job_key = ? AND state = 'PAUSED' RETURNING job_key)
                UPDATE %2$s p SET until_at = greatest(p.from_at, ?::timestamptz) FROM s
                WHERE p.job_key = s.job_key AND p.until_at IS NULL""".formatted(js, jss);
        // 1 unseen for (text), 2 by, 3 unseen for (ms); then 4 reason, 5 by
        retire = """
                WITH r AS (UPDATE %1$s SET state = 'RETIRED', state_since = clock_timestamp(),
                    state_reason = 'no live process registered it for ' || ?, state_by = ?,
                    check_at = clock_timestamp(),
                    overdue = 0
                    WHERE state <> 'RETIRED' AND seen_at < clock_timestamp() - ? * interval '1 millisecond'
                    RETURNING job_key),
                closed AS (UPDATE %2$s p SET until_at = greatest(p.from_at, clock_timestamp()) FROM r
                    WHERE p.job_key = r.job_key AND p.until_at IS NULL RETURNING p.job_key),
                spans AS (INSERT INTO %2$s (job_key, state, from_at, reason, set_by)
                    SELECT r.job_key, 'RETIRED', clock_timestamp() + interval '1 microsecond', ?, ? FROM r
                    ON CONFLICT DO NOTHING RETURNING job_key),
                dropped AS (DELETE FROM %3$s c USING r WHERE c.job_key = r.job_key RETURNING c.job_key)
                SELECT job_key FROM r ORDER BY job_key""".formatted(js, jss, jcu);
        // 1 behind ms, 2 limit
        unswept = """
                SELECT job_key, application, swept_at, check_at FROM %s
                WHERE state = 'ACTIVE' AND check_at < clock_timestamp() - ? * interval '1 millisecond'
                ORDER BY check_at LIMIT ?""".formatted(js);
        // 1 by, 2 jobs, 3 fire keys, 4 due times
        requestCatchUps = """
                INSERT INTO %s (job_key, fire_key, due_at, requested_by)
                SELECT m.job_key, m.fire_key, m.due_at, ? FROM unnest(?::text[], ?::text[], ?::timestamptz[])
                    AS m(job_key, fire_key, due_at)
                ON CONFLICT (job_key, fire_key) DO NOTHING""".formatted(jcu);
        // 1 jobs, 2 limit
        takeCatchUps = """
                DELETE FROM %1$s c WHERE (c.job_key, c.fire_key) IN (SELECT job_key, fire_key FROM %1$s
                    WHERE job_key = ANY(?) ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED)
                RETURNING c.job_key, c.fire_key, c.due_at""".formatted(jcu);
    }
}
