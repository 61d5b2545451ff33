package dev.tenure.db;

// Over 400 lines: every statement on the job and run rows in one place, each a text block with what its parameters
// are; the schedule ledger's statements are ScheduleSql.
/**
 * The ledger's SQL, with the schema written into every table name (never {@code search_path}) and the database clock
 * ({@code clock_timestamp()}) for every time: {@code now()} would be the start of a possibly long transaction, and the
 * application's clock is never compared with the database's. One instance per schema; immutable.
 *
 * <p><b>Row locks on {@code job_execution}</b>, chosen so that fence checks never hold up renewals while claims still
 * wait for every open fenced transaction:
 * <ul>
 * <li>fence check and completion (in the caller's transaction): {@code FOR KEY SHARE}; any number of overlapping
 *     fenced transactions of one job (parallel chunks) share it;</li>
 * <li>renewal, release, outcome: plain UPDATEs of non-key columns, i.e. {@code FOR NO KEY UPDATE}, which does not
 *     conflict with {@code FOR KEY SHARE}: a holder's own open transactions never delay its renewal;</li>
 * <li>claim and hand-off: {@code FOR UPDATE}, which conflicts with {@code FOR KEY SHARE}: a new owner waits until the
 *     old owner's fenced transactions have ended, so their writes commit before the hand-over or not at all.</li>
 * </ul>
 *
 * <p>A claim is one statement that first selects the row FOR UPDATE where no other owner's lease is live, then
 * updates it; it is not an upsert. A row whose WHERE fails on the current version (someone's lease is live) is not
 * locked at all, so claims of a held key never queue behind each other, the holder's fence checks or its release.
 * Locking first and writing second matters when the claim has to wait for a fence lock: a plain UPDATE would compute
 * {@code claimed_at} and {@code lease_expires_at} before the wait, while here they are computed after the lock is
 * granted, that is after the older owner's transaction ended. Only a missing row is inserted (ON CONFLICT DO
 * NOTHING, then the claim again).
 *
 * <p>A new epoch is {@code greatest(old + 1, database clock in microseconds)}: it grows by at least one per claim,
 * and a claim after a Postgres failover that lost acknowledged commits (an asynchronous standby promoted) still gets
 * an epoch above every lost one, because time has moved on; epochs passed to systems outside Postgres never go back.
 * Every statement by which a holder proves itself compares the owner id (unique per acquisition) as well as the epoch.
 *
 * <p>Statements that may wait for a row lock set their own {@code lock_timeout} first, in the same statement: a
 * one-row CTE calls {@code set_config('lock_timeout', ?, true)} (local to the statement's own transaction), and the
 * statement reads that CTE, so the setting is in force before any row is locked.
 *
 * <p>The fence check and the completions, which run in the caller's transaction, tag it with a shared advisory lock on
 * the job's tag ({@link #ISO}), so that a claim held up by a frozen holder's transaction after the lease expired can find
 * and end it ({@link StaleFences}).
 */
final class Sql {

    /**
     * A run row's holder as people read it: its node name and the first 4 characters of its owner id (which tell two
     * processes of one name apart), or the owner id of a run whose node is not known.
     */
    static final String HOLDER = "coalesce(node || '#' || left(owner, 4), owner)";

    /**
     * How long a session must have sat idle in a fenced transaction of a job whose lease has expired before a claim ends
     * it: a holder frozen at that point has been idle since before its lease ran out (about a TTL), while one that is
     * merely between two statements gets the claim's full lock timeout to commit.
     */
    static final long STALE_IDLE_MILLIS = 1000;

    private static final String MICROS = "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint";
    /**
     * The first CTE of the fence check and the completions, {@code iso}: {@code rc}, true in a READ COMMITTED
     * transaction (Postgres runs READ UNCOMMITTED as READ COMMITTED), and the transaction tagged as a fenced one of its
     * job: a shared advisory lock, held until the transaction ends, on parameter 1 (the job's tag,
     * {@link StaleFences#tag}).
     */
    private static final String ISO = """
            iso AS (SELECT current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') AS rc,
                (SELECT pg_try_advisory_xact_lock_shared(t.k) FROM (SELECT ?::bigint AS k) t) AS tagged)""";

    /** The running fire on the job row cleared with the run pointer (set by the statements that start a run). */
    static final String NO_RUN =
            "current_run_id = NULL, run_fire_key = NULL, run_started_at = NULL, run_trace_id = NULL";

    private static final String CLEAR_LEASE = """
            owner = NULL, node = NULL, status = 'IDLE', lease_expires_at = NULL, %s,
            updated_at = clock_timestamp()""".formatted(NO_RUN);

    final String claim;
    final String claimNew;
    final String holder;
    final String renewEpoch;
    final String renewOwner;
    /** {@link #renewOwner} for many leases in one statement; see the constructor. */
    final String renewOwners;

    final String fence;
    final String complete;
    final String releaseEpoch;
    final String releaseOwner;
    final String handOff;
    final String lockForRun;
    final String abandonOlderRuns;
    final String upsertRun;
    final String markRunning;
    final String runOf;
    /** Parameters: 1 trace id, 2 run id, 3 job key. */
    final String recordTraceId;
    /** The status of run {@code run_id = ?}. */
    final String runStatus;
    /**
     * The status of run {@code run_id = ?}; for a run whose row the sweeper replaced with its MISSED record (a run id of
     * its own, the holder's kept as the previous one: job {@code ?}, run {@code ?}), {@code MISSED}; else null. For a
     * refused completion only: the second part reads the job's runs.
     */
    final String runOrMissed;
    /** One statement: the fire's completion read, the claim and the fire's start; see {@link #claimAndStart}. */
    final String claimAndStart;
    /** {@link #claimAndStart} for claims of several jobs in one statement; see {@link #claimAndStartMany}. */
    final String claimAndStartMany;
    /** A job row with no holder yet (epoch 0), so that the next claim has a row to lock. */
    final String insertIdle;

    final String finishAndRelease;
    /** Like {@link #finishAndRelease} but keeps the lease, which the holder releases next; parameters 1-10 only. */
    final String finish;
    /** {@link #complete} and the release of the lease, in the caller's transaction; see the constructor. */
    final String completeAndRelease;
    /** A run cut short by its holder's shutdown: ABANDONED with a reason, and the lease cleared; see the constructor. */
    final String abandon;
    /** Ends the idle fenced transactions of a job whose lease has expired; see {@link StaleFences}. */
    final String endStaleFences;

    /**
     * {@code pg_notify(channel, key)} once, only if a live {@code release_listener} row says someone listens on the
     * channel; parameters: channel, key, channel. Also used by {@link TenureAdmin}'s force-release.
     */
    static String notifyIfListened(String quotedSchema, String from) {
        return """
                (SELECT count(*) FROM (SELECT pg_notify(?, ?) FROM %s%s.release_listener l WHERE l.channel = ?
                    AND l.expires_at > clock_timestamp() LIMIT 1) n)""".formatted(from, quotedSchema);
    }

    public Sql(String quotedSchema) {
        String je = quotedSchema + ".job_execution";
        String jr = quotedSchema + ".job_run";
        String notifyCleared = notifyIfListened(quotedSchema, "cleared, ");
        claim = """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                free AS (SELECT je.job_key FROM %1$s AS je, cfg WHERE je.job_key = ?
                    AND (je.lease_expires_at IS NULL OR je.lease_expires_at <= clock_timestamp() OR je.owner = ?)
                    FOR UPDATE OF je),
                won AS (UPDATE %1$s AS je SET fencing_token = greatest(je.fencing_token + 1, %2$s),
                    owner = ?, node = ?, status = 'HELD', %3$s, claimed_at = clock_timestamp(),
                    lease_expires_at = clock_timestamp() + ?::bigint * interval '1 millisecond',
                    updated_at = clock_timestamp() FROM free WHERE je.job_key = free.job_key
                    RETURNING je.fencing_token, je.owner, je.claimed_at, je.lease_expires_at)
                SELECT true, fencing_token, owner, claimed_at, lease_expires_at, clock_timestamp() FROM won
                UNION ALL SELECT false, fencing_token, owner, claimed_at, lease_expires_at, clock_timestamp() FROM %1$s
                WHERE job_key = ? AND NOT EXISTS (SELECT 1 FROM won)""".formatted(je, MICROS, NO_RUN);
        claimNew = """
                INSERT INTO %s (job_key, fencing_token, owner, node, status, claimed_at, lease_expires_at)
                VALUES (?, greatest(1, %s), ?, ?, 'HELD', clock_timestamp(),
                    clock_timestamp() + ?::bigint * interval '1 millisecond')
                ON CONFLICT (job_key) DO NOTHING
                RETURNING fencing_token, claimed_at, lease_expires_at, clock_timestamp()""".formatted(je, MICROS);
        holder = """
                SELECT owner, fencing_token, claimed_at, lease_expires_at, clock_timestamp() FROM %s
                WHERE job_key = ?""".formatted(je);
        // %2$s: the holder's check, its epoch and owner or its owner alone
        String renew = """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt)
                UPDATE %1$s AS je SET lease_expires_at = clock_timestamp() + ?::bigint * interval '1 millisecond',
                    updated_at = clock_timestamp()
                FROM cfg WHERE je.job_key = ? AND %2$s AND je.lease_expires_at > clock_timestamp()
                RETURNING je.lease_expires_at, clock_timestamp()""";
        renewEpoch = renew.formatted(je, "je.fencing_token = ? AND je.owner = ?");
        renewOwner = renew.formatted(je, "je.owner = ?");
        // Many renewals in one statement, each row with its own owner check and TTL. Parameters: lock timeout, keys,
        // owners, TTLs in ms (arrays of equal length). Returns the (key, owner) of every lease it extended.
        renewOwners = """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                req AS (SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[]) AS r(job_key, owner, ttl_ms))
                UPDATE %s AS je SET lease_expires_at = clock_timestamp() + req.ttl_ms * interval '1 millisecond',
                    updated_at = clock_timestamp()
                FROM cfg, req WHERE je.job_key = req.job_key AND je.owner = req.owner
                    AND je.lease_expires_at > clock_timestamp()
                RETURNING je.job_key, je.owner""".formatted(je);
        fence = """
                WITH %s,
                f AS (SELECT fencing_token, owner, lease_expires_at,
                    coalesce(lease_expires_at > clock_timestamp(), false) AS live
                    FROM %s WHERE job_key = ? FOR KEY SHARE)
                SELECT f.fencing_token, f.owner, f.lease_expires_at, f.live, iso.rc
                FROM iso LEFT JOIN f ON true""".formatted(ISO, je);
        complete = completion(je, jr, false, "");
        // %3$s: the holder's check, its epoch and owner or its owner alone
        String release = """
                WITH r AS (UPDATE %1$s SET %2$s
                    WHERE job_key = ? AND %3$s AND owner IS NOT NULL RETURNING updated_at)
                SELECT updated_at, %4$s FROM r""";
        String notify = notifyIfListened(quotedSchema, "");
        releaseEpoch = release.formatted(je, CLEAR_LEASE, "fencing_token = ? AND owner = ?", notify);
        releaseOwner = release.formatted(je, CLEAR_LEASE, "owner = ?", notify);
        handOff = """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                cur AS (SELECT je.job_key FROM %1$s AS je, cfg WHERE je.job_key = ? AND je.owner = ? FOR UPDATE OF je)
                UPDATE %1$s AS je SET owner = ?, node = ?, fencing_token = greatest(je.fencing_token + 1, %2$s),
                    status = 'HELD', %3$s, claimed_at = clock_timestamp(),
                    lease_expires_at = clock_timestamp() + ?::bigint * interval '1 millisecond',
                    updated_at = clock_timestamp()
                FROM cur WHERE je.job_key = cur.job_key
                RETURNING je.fencing_token, je.lease_expires_at, clock_timestamp()""".formatted(je, MICROS, NO_RUN);
        lockForRun = """
                SELECT fencing_token, owner, lease_expires_at, coalesce(lease_expires_at > clock_timestamp(), false)
                FROM %s WHERE job_key = ? FOR NO KEY UPDATE""".formatted(je);
        abandonOlderRuns = """
                UPDATE %s SET status = 'ABANDONED', finished_at = clock_timestamp(),
                    error = 'the lease of ' || %s || ' (epoch ' || epoch || ') ended while the run was RUNNING'
                WHERE job_key = ? AND status = 'RUNNING' AND epoch < ?""".formatted(jr, HOLDER);
        upsertRun = """
                INSERT INTO %s AS r (run_id, job_key, fire_key, epoch, owner, node, trace_id, status, started_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, 'RUNNING', clock_timestamp())
                ON CONFLICT (job_key, fire_key) DO UPDATE SET run_id = excluded.run_id, epoch = excluded.epoch,
                    owner = excluded.owner, node = excluded.node, trace_id = excluded.trace_id, status = 'RUNNING',
                    attempt = r.attempt + 1, previous_run_id = r.run_id, previous_status = r.status,
                    started_at = clock_timestamp(), finished_at = NULL, error = NULL
                WHERE r.status IN ('FAILED', 'ABANDONED', 'REJECTED_STALE')
                RETURNING r.attempt, r.previous_status""".formatted(jr);
        // 1 run id, 2 fire, 3 trace id, 4 job, 5 epoch
        markRunning = """
                UPDATE %s SET status = 'RUNNING', current_run_id = ?, run_fire_key = ?, run_started_at = clock_timestamp(),
                    run_trace_id = ?, updated_at = clock_timestamp()
                WHERE job_key = ? AND fencing_token = ?""".formatted(je);
        claimAndStart = claimAndStart(je, jr);
        claimAndStartMany = claimAndStartMany(je, jr);
        insertIdle = "INSERT INTO %s (job_key) VALUES (?) ON CONFLICT (job_key) DO NOTHING".formatted(je);
        // the run's row, and the job row while the run is its current one
        recordTraceId = """
                WITH t AS (SELECT ?::text AS trace_id, ?::uuid AS run_id, ?::text AS job_key),
                onJob AS (UPDATE %2$s je SET run_trace_id = t.trace_id FROM t
                    WHERE je.job_key = t.job_key AND je.current_run_id = t.run_id RETURNING 1)
                UPDATE %1$s r SET trace_id = t.trace_id FROM t WHERE r.run_id = t.run_id AND r.job_key = t.job_key
                """.formatted(jr, je);
        runOf = """
                SELECT run_id, job_key, fire_key, epoch, owner, status, attempt, started_at, finished_at, error
                FROM %s WHERE job_key = ? AND fire_key = ?""".formatted(jr);
        runStatus = "SELECT status FROM %s WHERE run_id = ?".formatted(jr);
        runOrMissed = """
                SELECT coalesce((SELECT status FROM %1$s WHERE run_id = ?),
                    (SELECT status FROM %1$s WHERE job_key = ? AND previous_run_id = ? AND status = 'MISSED'
                        LIMIT 1))""".formatted(jr);
        finishAndRelease = finish(je, jr, CLEAR_LEASE, notifyCleared);
        // The completion and the release, in the caller's (business) transaction, for a run that is that one
        // transaction; see completion().
        completeAndRelease = completion(je, jr, true, notifyCleared);
        finish = finish(je, jr, "status = 'HELD', " + NO_RUN + ", updated_at = clock_timestamp()", "0");
        // The sessions that hold the job's fence tag (a shared advisory lock, see ISO) and sit idle in their
        // transaction, for at least STALE_IDLE_MILLIS, while the job's lease has expired: terminated, if this role may
        // (same role or pg_signal_backend; a superuser's session only by a superuser). Parameters: 1 and 2 the tag,
        // 3 job. Column: sessions ended.
        endStaleFences = """
                SELECT count(*) FILTER (WHERE pg_terminate_backend(a.pid))
                FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid JOIN pg_roles r ON r.oid = a.usesysid
                WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                    AND l.classid = ((?::bigint >> 32) & 4294967295)::oid AND l.objid = (?::bigint & 4294967295)::oid
                    AND a.state IN ('idle in transaction', 'idle in transaction (aborted)')
                    AND a.pid <> pg_backend_pid()
                    AND a.state_change < clock_timestamp() - interval '%s milliseconds'
                    AND (pg_has_role(a.usesysid, 'MEMBER') OR pg_has_role('pg_signal_backend', 'MEMBER'))
                    AND (NOT r.rolsuper OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user))
                    AND EXISTS (SELECT 1 FROM %s WHERE job_key = ? AND (lease_expires_at IS NULL
                        OR lease_expires_at <= clock_timestamp()))""".formatted(STALE_IDLE_MILLIS, je);
        // The holder shuts down before its run ended: the lease is cleared and a RUNNING run turns ABANDONED with the
        // reason, both only under the holder's epoch and owner, and only while the run is the holder's (see finish()):
        // a run recorded MISSED is left so, and so is the lease, for its holder to release. A run whose completion is
        // still uncommitted in the holder's transaction is waited for (its row is locked; at most the lock timeout, as
        // finish waits) and stays COMPLETED. Parameters: 1 lock timeout, 2 run id, 3 job, 4 epoch, 5 owner, 6 reason,
        // 7 run id, 8 job, 9 epoch, then the notify's. Columns: 1 leases cleared, 2 runs abandoned, 3 the run's status
        // before this statement (null: no row has its id).
        abandon = """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                prior AS (SELECT status FROM %1$s WHERE run_id = ?),
                cleared AS (UPDATE %2$s SET %3$s
                    FROM cfg WHERE job_key = ? AND fencing_token = ? AND owner = ?
                    AND EXISTS (SELECT 1 FROM prior WHERE status IN ('RUNNING', 'COMPLETED')) RETURNING job_key),
                run AS (UPDATE %1$s SET status = 'ABANDONED', finished_at = clock_timestamp(), error = ?
                    FROM cfg WHERE run_id = ? AND job_key = ? AND epoch = ? AND status = 'RUNNING'
                    AND EXISTS (SELECT 1 FROM cleared) RETURNING run_id)
                SELECT (SELECT count(*) FROM cleared), (SELECT count(*) FROM run), (SELECT status FROM prior),
                    %4$s""".formatted(jr, je, CLEAR_LEASE, notifyCleared);
    }

    /**
     * Reads the fire's completion, claims the job and starts the fire, in one statement (one commit), as
     * {@code claim} and {@code startRun} would in two:
     * <ul>
     * <li>{@code done}: the fire already COMPLETED, or was recorded MISSED: nothing is claimed (no epoch spent);</li>
     * <li>{@code free} and {@code won}: the claim (FOR UPDATE, waiting for open fenced transactions up to the lock
     *     timeout), only where no other owner's lease is live and the fire is not done; the job row turns RUNNING with
     *     the new run's id;</li>
     * <li>{@code abandoned}: RUNNING runs of other fires under older epochs turn ABANDONED;</li>
     * <li>{@code run}: the fire's row is inserted, or a FAILED, ABANDONED, REJECTED_STALE or (older epoch) RUNNING row
     *     is taken over (attempt + 1); a row COMPLETED meanwhile is left alone (then no row returns from it).</li>
     * </ul>
     * Parameters: 1 lock timeout, 2 job, 3 fire, 4 job, 5 owner, 6 owner, 7 node, 8 run id, 9 ttl ms, 10 fire,
     * 11 trace id (the running fire on the job row), 12 job, 13 fire, 14 run id, 15 job, 16 fire, 17 owner, 18 node,
     * 19 trace id, 20 job. Columns: 1 kind ({@code started}, {@code done}, {@code missed}, {@code held}), 2 epoch,
     * 3 owner, 4 run id, 5 lease expiry, 6 database now, 7 attempt (null: the fire completed meanwhile).
     */
    private static String claimAndStart(String je, String jr) {
        return """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                done AS (SELECT run_id, owner, epoch, status FROM %2$s WHERE job_key = ? AND fire_key = ?
                    AND status IN ('COMPLETED', 'MISSED')),
                free AS (SELECT je.job_key FROM %1$s AS je, cfg WHERE je.job_key = ?
                    AND (je.lease_expires_at IS NULL OR je.lease_expires_at <= clock_timestamp() OR je.owner = ?)
                    AND NOT EXISTS (SELECT 1 FROM done) FOR UPDATE OF je),
                won AS (UPDATE %1$s AS je SET fencing_token = greatest(je.fencing_token + 1, %3$s),
                    owner = ?, node = ?, status = 'RUNNING', current_run_id = ?::uuid, claimed_at = clock_timestamp(),
                    lease_expires_at = clock_timestamp() + ?::bigint * interval '1 millisecond',
                    run_fire_key = ?, run_started_at = clock_timestamp(), run_trace_id = ?,
                    updated_at = clock_timestamp() FROM free
                    WHERE je.job_key = free.job_key RETURNING je.fencing_token, je.lease_expires_at),
                abandoned AS (UPDATE %2$s SET status = 'ABANDONED', finished_at = clock_timestamp(),
                    error = 'the lease of ' || %4$s || ' (epoch ' || epoch || ') ended while the run was RUNNING'
                    WHERE job_key = ? AND fire_key <> ? AND status = 'RUNNING'
                    AND epoch < (SELECT fencing_token FROM won)),
                run AS (INSERT INTO %2$s AS r
                    (run_id, job_key, fire_key, epoch, owner, node, trace_id, status, started_at)
                    SELECT ?::uuid, ?, ?, won.fencing_token, ?, ?, ?, 'RUNNING', clock_timestamp() FROM won
                    ON CONFLICT (job_key, fire_key) DO UPDATE SET run_id = excluded.run_id, epoch = excluded.epoch,
                        owner = excluded.owner, node = excluded.node, trace_id = excluded.trace_id, status = 'RUNNING',
                        attempt = r.attempt + 1, previous_run_id = r.run_id,
                        previous_status = CASE WHEN r.status = 'RUNNING' THEN 'ABANDONED' ELSE r.status END,
                        started_at = clock_timestamp(), finished_at = NULL, error = NULL
                    WHERE r.status IN ('FAILED', 'ABANDONED', 'REJECTED_STALE', 'RUNNING') RETURNING r.attempt)
                SELECT 'started', w.fencing_token, NULL, NULL, w.lease_expires_at, clock_timestamp(),
                    (SELECT attempt FROM run) FROM won w
                UNION ALL SELECT CASE WHEN d.status = 'MISSED' THEN 'missed' ELSE 'done' END, d.epoch, d.owner,
                    d.run_id::text, NULL, clock_timestamp(), NULL FROM done d
                UNION ALL SELECT 'held', je.fencing_token, je.owner, NULL, je.lease_expires_at, clock_timestamp(), NULL
                    FROM %1$s je WHERE je.job_key = ? AND NOT EXISTS (SELECT 1 FROM won)
                    AND NOT EXISTS (SELECT 1 FROM done)""".formatted(je, jr, MICROS, HOLDER);
    }

    /**
     * {@link #claimAndStart} for several claims in one statement ({@link ClaimGroups}): each request row ({@code req},
     * numbered from 1 in array order) has its own job, fire, owner, run id, TTL and trace id, and is read, claimed and
     * started under exactly the conditions of the one-claim statement, so each row gets the epoch and answer it would
     * have got alone. No two requests may name the same job (a statement cannot update a row twice). The free job rows
     * are locked in job key order (the claims come sorted by job, and each is locked by a subquery of its own), so two
     * such statements never wait for each other in a cycle. Each job row is read by a subquery per request: the plan
     * is a generic one, planned without the arrays, and a join of {@code req} with the job table scans a small table
     * whole, so every claim statement would read every job row. Parameters: 1 lock timeout, 2-7 arrays of jobs (in
     * key order, no job twice), fires, owners, run ids, TTLs in ms and trace ids (equal lengths), 8 node, 9 jobs,
     * 10 node. Columns: 1 request number, then the one-claim statement's 7; a request whose job has no row gets none.
     */
    private static String claimAndStartMany(String je, String jr) {
        return """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                req AS (SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[])
                    WITH ORDINALITY AS q(job_key, fire_key, owner, run_id, ttl_ms, trace_id, n) ORDER BY job_key),
                done AS (SELECT req.n, d.run_id, d.owner, d.epoch, d.status FROM req JOIN %2$s AS d
                    ON d.job_key = req.job_key AND d.fire_key = req.fire_key WHERE d.status IN ('COMPLETED', 'MISSED')),
                free AS (SELECT f.job_key, req.n FROM req CROSS JOIN LATERAL (SELECT je.job_key FROM %1$s AS je, cfg
                    WHERE je.job_key = req.job_key
                    AND (je.lease_expires_at IS NULL OR je.lease_expires_at <= clock_timestamp()
                        OR je.owner = req.owner)
                    AND NOT EXISTS (SELECT 1 FROM done WHERE done.n = req.n) FOR UPDATE OF je) f),
                won AS (UPDATE %1$s AS je SET fencing_token = greatest(je.fencing_token + 1, %3$s),
                    owner = req.owner, node = ?, status = 'RUNNING', current_run_id = req.run_id::uuid,
                    claimed_at = clock_timestamp(),
                    lease_expires_at = clock_timestamp() + req.ttl_ms * interval '1 millisecond',
                    run_fire_key = req.fire_key, run_started_at = clock_timestamp(), run_trace_id = req.trace_id,
                    updated_at = clock_timestamp() FROM free JOIN req ON req.n = free.n
                    WHERE je.job_key = free.job_key AND je.job_key = ANY(?::text[])
                    RETURNING req.n, je.job_key AS job, req.fire_key AS fire, req.owner AS claimant,
                        req.run_id AS rid, req.trace_id AS tid, je.fencing_token, je.lease_expires_at),
                abandoned AS (UPDATE %2$s SET status = 'ABANDONED', finished_at = clock_timestamp(),
                    error = 'the lease of ' || %4$s || ' (epoch ' || epoch || ') ended while the run was RUNNING'
                    FROM won WHERE job_key = won.job AND fire_key <> won.fire AND status = 'RUNNING'
                    AND epoch < won.fencing_token),
                run AS (INSERT INTO %2$s AS r
                    (run_id, job_key, fire_key, epoch, owner, node, trace_id, status, started_at)
                    SELECT won.rid::uuid, won.job, won.fire, won.fencing_token, won.claimant, ?, won.tid, 'RUNNING',
                        clock_timestamp() FROM won
                    ON CONFLICT (job_key, fire_key) DO UPDATE SET run_id = excluded.run_id, epoch = excluded.epoch,
                        owner = excluded.owner, node = excluded.node, trace_id = excluded.trace_id, status = 'RUNNING',
                        attempt = r.attempt + 1, previous_run_id = r.run_id,
                        previous_status = CASE WHEN r.status = 'RUNNING' THEN 'ABANDONED' ELSE r.status END,
                        started_at = clock_timestamp(), finished_at = NULL, error = NULL
                    WHERE r.status IN ('FAILED', 'ABANDONED', 'REJECTED_STALE', 'RUNNING')
                    RETURNING r.job_key, r.attempt)
                SELECT w.n, 'started', w.fencing_token, NULL, NULL, w.lease_expires_at, clock_timestamp(), run.attempt
                    FROM won w LEFT JOIN run ON run.job_key = w.job
                UNION ALL SELECT d.n, CASE WHEN d.status = 'MISSED' THEN 'missed' ELSE 'done' END, d.epoch, d.owner,
                    d.run_id::text, NULL, clock_timestamp(), NULL FROM done d
                UNION ALL SELECT req.n, 'held', je.fencing_token, je.owner, NULL, je.lease_expires_at,
                    clock_timestamp(), NULL
                    FROM req CROSS JOIN LATERAL (SELECT j.fencing_token, j.owner, j.lease_expires_at FROM %1$s j
                        WHERE j.job_key = req.job_key OFFSET 0) je
                    WHERE NOT EXISTS (SELECT 1 FROM won WHERE won.n = req.n)
                    AND NOT EXISTS (SELECT 1 FROM done WHERE done.n = req.n)""".formatted(je, jr, MICROS, HOLDER);
    }

    /**
     * The fence check and the completion of a run, in the caller's transaction: the job row locked ({@code f}) and its
     * holder read, the run turned COMPLETED under that holder ({@code done}); with {@code release}, the lease cleared
     * under the same check ({@code cleared}) and waiters notified at the commit.
     *
     * <p>At READ COMMITTED the row read is the latest committed one, and the check is made here. With {@code release}
     * the row is locked FOR NO KEY UPDATE first (a claim waits for the commit; the holder's own renewals are held back
     * by its client); otherwise FOR KEY SHARE. At REPEATABLE READ or SERIALIZABLE ({@code iso.rc} false) the row read is
     * the transaction's snapshot, which predates any renewal committed since: the row is locked FOR KEY SHARE only
     * (which a renewal does not conflict with; a lock or update of the row would fail with 40001), the run is completed
     * whatever the snapshot says of the lease's expiry, the lease is not cleared, and the caller checks the latest
     * committed row itself (the lock covers it) before it lets the transaction commit.
     *
     * <p>Parameters: 1 the job's tag ({@link #ISO}), 2 job (with {@code release}: 2 and 3 job), then epoch, owner,
     * run id, job; with {@code release}
     * job, epoch, owner; run id; with {@code release} the notify's. Columns: 1-4 the holder (epoch, owner, expiry, live;
     * null when the row is missing from the snapshot), 5 runs completed now, 6 the run's status before, 7 read committed;
     * with {@code release} 8 leases cleared.
     */
    private static String completion(String je, String jr, boolean release, String notify) {
        if (!release) {
            return """
                    WITH %1$s,
                    f AS (SELECT fencing_token, owner, lease_expires_at,
                        coalesce(lease_expires_at > clock_timestamp(), false) AS live FROM %2$s WHERE job_key = ?
                        FOR KEY SHARE),
                    done AS (UPDATE %3$s AS r SET status = 'COMPLETED', finished_at = clock_timestamp(), error = NULL
                        FROM f, iso WHERE f.fencing_token = ? AND f.owner = ? AND (f.live OR NOT iso.rc)
                        AND r.run_id = ? AND r.job_key = ? AND r.epoch = f.fencing_token AND r.status = 'RUNNING'
                        RETURNING r.run_id)
                    SELECT f.fencing_token, f.owner, f.lease_expires_at, f.live, (SELECT count(*) FROM done),
                        (SELECT status FROM %3$s WHERE run_id = ?), iso.rc
                    FROM iso LEFT JOIN f ON true""".formatted(ISO, je, jr);
        }
        return """
                WITH %1$s,
                fw AS (SELECT fencing_token, owner, lease_expires_at,
                    coalesce(lease_expires_at > clock_timestamp(), false) AS live FROM %2$s AS je, iso
                    WHERE je.job_key = ? AND iso.rc FOR NO KEY UPDATE OF je),
                fs AS (SELECT fencing_token, owner, lease_expires_at,
                    coalesce(lease_expires_at > clock_timestamp(), false) AS live FROM %2$s AS je, iso
                    WHERE je.job_key = ? AND NOT iso.rc FOR KEY SHARE OF je),
                f AS (SELECT * FROM fw UNION ALL SELECT * FROM fs),
                done AS (UPDATE %3$s AS r SET status = 'COMPLETED', finished_at = clock_timestamp(), error = NULL
                    FROM f, iso WHERE f.fencing_token = ? AND f.owner = ? AND (f.live OR NOT iso.rc)
                    AND r.run_id = ? AND r.job_key = ? AND r.epoch = f.fencing_token AND r.status = 'RUNNING'
                    RETURNING r.run_id),
                cleared AS (UPDATE %2$s AS je SET %4$s FROM fw
                    WHERE je.job_key = ? AND fw.fencing_token = ? AND fw.owner = ? AND fw.live RETURNING je.job_key)
                SELECT f.fencing_token, f.owner, f.lease_expires_at, f.live, (SELECT count(*) FROM done),
                    (SELECT status FROM %3$s WHERE run_id = ?), iso.rc, (SELECT count(*) FROM cleared), %5$s
                FROM iso LEFT JOIN f ON true""".formatted(ISO, je, jr, CLEAR_LEASE, notify);
    }

    /**
     * The outcome of a run, recorded from its run row: the lease is cleared (or, for {@code finish}, its run pointer)
     * only under the holder's epoch and owner and only while the run is the holder's, RUNNING or COMPLETED. A run the
     * sweeper recorded MISSED (its row MISSED, or replaced by the MISSED record's own run id) is not: nothing is
     * recorded, and the lease is left to its holder's release. A run still RUNNING under an epoch that is no longer
     * current, or ABANDONED by a successor's claim (its holder was paused or cut off, not dead: it reports back), turns
     * REJECTED_STALE, so the history tells a refused stale holder from a dead one (a killed holder's run stays
     * ABANDONED); the abandon reason is kept in {@code error}. The statement waits for a row lock at most its lock
     * timeout (set first, as the claim's is): a completion of the run in a transaction that has not ended holds the run
     * row. Parameters: 1 lock timeout, 2 run id, 3 job, 4 epoch, 5 owner, 6 outcome, 7 error, 8 run id, 9 job, 10 epoch
     * (then the notify's). Columns: 1 lease rows matched (0 = fenced out, or the run is not the holder's), 2 the status
     * recorded now (null if none), 3 the run's status before this statement (null: no row has its id; {@code COMPLETED}
     * = completed earlier in the run's own business transaction). The status before is the statement's snapshot: a run
     * that changed while the statement waited for its lock is neither recorded nor reported, and the caller reads it
     * again.
     */
    private static String finish(String je, String jr, String set, String notify) {
        return """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                prior AS (SELECT status FROM %1$s WHERE run_id = ?),
                cleared AS (UPDATE %2$s SET %3$s
                    FROM cfg WHERE job_key = ? AND fencing_token = ? AND owner = ?
                    AND EXISTS (SELECT 1 FROM prior WHERE status IN ('RUNNING', 'COMPLETED')) RETURNING job_key),
                run AS (UPDATE %1$s
                    SET status = CASE WHEN EXISTS (SELECT 1 FROM cleared) THEN ? ELSE 'REJECTED_STALE' END,
                    finished_at = clock_timestamp(),
                    error = nullif(concat_ws('; then its holder came back and was refused: ',
                        CASE WHEN status = 'ABANDONED' THEN error END, ?::text), '')
                    FROM cfg WHERE run_id = ? AND job_key = ? AND epoch = ?
                    AND (status = 'RUNNING' OR (status = 'ABANDONED' AND NOT EXISTS (SELECT 1 FROM cleared)))
                    RETURNING status)
                SELECT (SELECT count(*) FROM cleared), (SELECT status FROM run), (SELECT status FROM prior),
                    %4$s""".formatted(jr, je, set, notify);
    }
}
