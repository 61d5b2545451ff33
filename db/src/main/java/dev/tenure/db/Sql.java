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

    /**
     * What a claim reads of the job row's current run before it overwrites it (the row aliased {@code je}), for
     * {@link #abandonPrevious}: its status, run id, fire, epoch, owner, node, start and trace id; and the transaction
     * that wrote the version it locked ({@link #SECOND_READ}).
     */
    static final String PREVIOUS = """
            je.status AS was, je.current_run_id AS old_run, je.run_fire_key AS old_fire, je.fencing_token AS old_epoch,
            je.owner AS old_owner, je.node AS old_node, je.run_started_at AS old_started, je.run_trace_id AS old_trace,
            je.xmin::text AS locked_xmin""";

    /**
     * When a claim reads the fire's completion again ({@code settled_run}, with a snapshot of its own) once it holds the
     * job row (aliased {@code f}, with {@link #PREVIOUS}'s columns; {@code %s} the job table): only when something may
     * have completed the fire, or recorded it MISSED, after the claim statement's snapshot was taken:
     * <ul>
     * <li>the row it locked is not the version its snapshot shows (another transaction changed it since: a claim, a
     *     completion that released the lease, a release, a sweeper that recorded MISSED fires of the job);</li>
     * <li>or the row still names a holder (whose lease has ended, or the claimant itself): a holder may complete in a
     *     transaction that only locks the row, and commit just before the claim gets it.</li>
     * </ul>
     * Otherwise nobody wrote to the job since the snapshot, and nobody holds it, so the snapshot's read ({@code done})
     * stands: the common claim, of a job its last holder released, spends no second read.
     */
    static final String SECOND_READ = "(f.old_owner IS NOT NULL OR f.locked_xmin IS DISTINCT FROM "
            + "(SELECT j.xmin::text FROM %s j WHERE j.job_key = f.job_key))";

    /**
     * Why a run whose holder's lease ended turns ABANDONED, from {@link #PREVIOUS}'s columns (aliased p), naming the
     * holder as people read it: its node name and the first 4 characters of its owner id (which tell two processes of
     * one name apart), or the owner id of a run whose node is not known.
     */
    static final String LEASE_ENDED = "'the lease of ' || coalesce(p.old_node || '#' || left(p.old_owner, 4), "
            + "p.old_owner) || ' (epoch ' || p.old_epoch || ') ended while the run was RUNNING'";

    /** The columns of a run row written whole (at the run's end, or by the sweeper). */
    static final String RUN_COLUMNS =
            "(run_id, job_key, fire_key, epoch, owner, node, trace_id, status, started_at, finished_at, error)";

    /**
     * The conflict clause of a run row written at its end (insert alias {@code r}): a fire's earlier FAILED, ABANDONED or
     * REJECTED_STALE row, or a RUNNING row of an older epoch left by a version before schema 8, is taken over (the
     * attempt after it, the earlier run kept as the previous one); any other row (COMPLETED, MISSED, or this run's own)
     * stays as it is, and nothing is written.
     */
    static final String TAKE_OVER = """
            ON CONFLICT (job_key, fire_key) DO UPDATE SET run_id = excluded.run_id, epoch = excluded.epoch,
                owner = excluded.owner, node = excluded.node, trace_id = excluded.trace_id, status = excluded.status,
                attempt = r.attempt + 1, previous_run_id = r.run_id, previous_status = r.status,
                started_at = excluded.started_at, finished_at = excluded.finished_at, error = excluded.error
            WHERE r.run_id <> excluded.run_id AND (r.status IN ('FAILED', 'ABANDONED', 'REJECTED_STALE')
                OR (r.status = 'RUNNING' AND r.epoch < excluded.epoch))""";

    /**
     * A CTE {@code name} that writes the ABANDONED row of the run that each job claimed by CTE {@code won} (column
     * {@code job}) was running before (CTE {@code src}: {@code job_key} and {@link #PREVIOUS}'s columns), with
     * {@code error}: a run whose holder's lease ended before it finished, whose row the claim writes since nobody else
     * will. A run that has a row already (it completed, or its holder recorded an outcome) is left alone. Returns the
     * job, fire and attempt of each row written.
     */
    static String abandonPrevious(String jr, String name, String src, String won, String error) {
        return abandonPrevious(jr, name, src, won, error, false);
    }

    /**
     * {@link #abandonPrevious}; with {@code legacy}, also a CTE {@code <name>Legacy} that turns ABANDONED the RUNNING
     * row that a version before schema 8 wrote for that run. Claims leave such a row to the sweeper, which records its
     * fire MISSED, or to the fire's next attempt, which takes it over: the check would cost every claim.
     */
    static String abandonPrevious(String jr, String name, String src, String won, String error, boolean legacy) {
        String rows = """
                %2$s AS (INSERT INTO %1$s AS r %3$s
                    SELECT p.old_run, p.job_key, p.old_fire, p.old_epoch, p.old_owner, p.old_node, p.old_trace,
                        'ABANDONED', p.old_started, clock_timestamp(), %6$s
                    FROM %4$s p JOIN %5$s w ON w.job = p.job_key
                    WHERE p.was = 'RUNNING' AND p.old_run IS NOT NULL AND p.old_fire IS NOT NULL
                        AND p.old_owner IS NOT NULL AND NOT EXISTS (SELECT 1 FROM %1$s x WHERE x.run_id = p.old_run)
                    %7$s
                    RETURNING r.job_key, r.fire_key, r.attempt)""".formatted(jr, name, RUN_COLUMNS, src, won, error, TAKE_OVER);
        if (!legacy) {
            return rows;
        }
        return rows + """
                ,
                %2$sLegacy AS (UPDATE %1$s r SET status = 'ABANDONED', finished_at = clock_timestamp(), error = %5$s
                    FROM %3$s p JOIN %4$s w ON w.job = p.job_key
                    WHERE r.run_id = p.old_run AND r.status = 'RUNNING')""".formatted(jr, name, src, won, error);
    }

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
    /** The holder and the current run of the job row, locked FOR NO KEY UPDATE; see the constructor. */
    final String lockForRun;
    /** The fire's start on the job row (the two-step start); see the constructor. */
    final String startRun;

    final String runOf;
    /** {@link #runOf} if the fire's run COMPLETED or was recorded MISSED. */
    final String doneRun;
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
        // the job row's previous run, if its holder's lease ended while it ran, gets its ABANDONED row here
        claim = """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                free AS (SELECT je.job_key, %4$s FROM %1$s AS je, cfg WHERE je.job_key = ?
                    AND (je.lease_expires_at IS NULL OR je.lease_expires_at <= clock_timestamp() OR je.owner = ?)
                    FOR UPDATE OF je),
                won AS (UPDATE %1$s AS je SET fencing_token = greatest(je.fencing_token + 1, %2$s),
                    owner = ?, node = ?, status = 'HELD', %3$s, claimed_at = clock_timestamp(),
                    lease_expires_at = clock_timestamp() + ?::bigint * interval '1 millisecond',
                    updated_at = clock_timestamp() FROM free WHERE je.job_key = free.job_key
                    RETURNING je.job_key AS job, je.fencing_token, je.owner, je.claimed_at, je.lease_expires_at),
                %5$s
                SELECT true, fencing_token, owner, claimed_at, lease_expires_at, clock_timestamp() FROM won
                UNION ALL SELECT false, fencing_token, owner, claimed_at, lease_expires_at, clock_timestamp() FROM %1$s
                WHERE job_key = ? AND NOT EXISTS (SELECT 1 FROM won)""".formatted(
                        je, MICROS, NO_RUN, PREVIOUS, abandonPrevious(jr, "abandoned", "free", "won", LEASE_ENDED));
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
                cur AS (SELECT je.job_key, %4$s FROM %1$s AS je, cfg WHERE je.job_key = ? AND je.owner = ?
                    FOR UPDATE OF je),
                won AS (UPDATE %1$s AS je SET owner = ?, node = ?, fencing_token = greatest(je.fencing_token + 1, %2$s),
                    status = 'HELD', %3$s, claimed_at = clock_timestamp(),
                    lease_expires_at = clock_timestamp() + ?::bigint * interval '1 millisecond',
                    updated_at = clock_timestamp()
                    FROM cur WHERE je.job_key = cur.job_key
                    RETURNING je.job_key AS job, je.fencing_token, je.lease_expires_at),
                %5$s
                SELECT fencing_token, lease_expires_at, clock_timestamp() FROM won""".formatted(
                        je, MICROS, NO_RUN, PREVIOUS, abandonPrevious(jr, "abandoned", "cur", "won", LEASE_ENDED));
        // 1 job. Columns: 1-4 the holder (epoch, owner, expiry, live), 5 status, 6 current run id, 7 its fire, 8 its
        // start
        lockForRun = """
                SELECT fencing_token, owner, lease_expires_at, coalesce(lease_expires_at > clock_timestamp(), false),
                    status, current_run_id, run_fire_key, run_started_at
                FROM %s WHERE job_key = ? FOR NO KEY UPDATE""".formatted(je);
        // The fire starts on the job row (locked by lockForRun in the same transaction), under the holder's epoch; a
        // run
        // the row still carried is written ABANDONED first. Parameters: 1 job, 2 run id, 3 fire, 4 trace id, 5 job,
        // 6 epoch, 7 job, 8 fire, 9 fire, 10 fire. Columns: 1 attempt, 2 the status of the fire's earlier attempt
        // (null:
        // none).
        startRun = """
                WITH p AS (SELECT je.job_key, %3$s FROM %1$s je WHERE je.job_key = ?),
                won AS (UPDATE %1$s AS je SET status = 'RUNNING', current_run_id = ?::uuid, run_fire_key = ?,
                    run_started_at = clock_timestamp(), run_trace_id = ?, updated_at = clock_timestamp()
                    WHERE je.job_key = ? AND je.fencing_token = ? RETURNING je.job_key AS job),
                %4$s,
                prior AS (SELECT attempt, status FROM %2$s WHERE job_key = ? AND fire_key = ?)
                SELECT coalesce((SELECT a.attempt FROM abandoned a WHERE a.fire_key = ?), (SELECT attempt FROM prior), 0)
                    + 1, CASE WHEN EXISTS (SELECT 1 FROM abandoned a WHERE a.fire_key = ?) THEN 'ABANDONED'
                    ELSE (SELECT status FROM prior) END
                FROM won""".formatted(je, jr, PREVIOUS, abandonPrevious(jr, "abandoned", "p", "won", LEASE_ENDED));
        claimAndStart = claimAndStart(je, jr, quotedSchema);
        claimAndStartMany = claimAndStartMany(je, jr, quotedSchema);
        insertIdle = "INSERT INTO %s (job_key) VALUES (?) ON CONFLICT (job_key) DO NOTHING".formatted(je);
        // the run's row, and the job row while the run is its current one
        recordTraceId = """
                WITH t AS (SELECT ?::text AS trace_id, ?::uuid AS run_id, ?::text AS job_key),
                onJob AS (UPDATE %2$s je SET run_trace_id = t.trace_id FROM t
                    WHERE je.job_key = t.job_key AND je.current_run_id = t.run_id RETURNING 1)
                UPDATE %1$s r SET trace_id = t.trace_id FROM t WHERE r.run_id = t.run_id AND r.job_key = t.job_key
                """.formatted(jr, je);
        // a fire's COMPLETED or MISSED row: the table alone (a running fire is never done)
        doneRun = """
                SELECT run_id, job_key, fire_key, epoch, owner, status, attempt, started_at, finished_at, error
                FROM %s WHERE job_key = ? AND fire_key = ? AND status IN ('COMPLETED', 'MISSED')""".formatted(jr);
        // the fire's run as job_runs shows it: its row, or the running fire its job row carries
        runOf = """
                SELECT run_id, job_key, fire_key, epoch, owner, status, attempt, started_at, finished_at, error
                FROM %ss WHERE job_key = ? AND fire_key = ?""".formatted(jr);
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
        // The holder shuts down before its run ended: the lease is cleared and a running run gets its ABANDONED row
        // with
        // the reason, both only under the holder's epoch and owner, and only while the run is the holder's (see
        // finish()): a run recorded MISSED is left so, and so is the lease, for its holder to release. A run whose
        // completion is still uncommitted in the holder's transaction is waited for (its job row is locked; at most
        // the lock timeout, as finish waits) and stays COMPLETED. Parameters: 1 lock timeout, 2 job, 3 run id, 4 run
        // id,
        // 5 job, 6 epoch, 7 owner, 8 reason, then the notify's. Columns: 1 leases cleared, 2 runs abandoned, 3 the
        // run's
        // status before this statement (RUNNING while the job row carries it; null: no run of that id).
        abandon = """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                %1$s,
                cleared AS (UPDATE %2$s SET %3$s
                    FROM cfg WHERE job_key = ? AND fencing_token = ? AND owner = ?
                    AND EXISTS (SELECT 1 FROM prior WHERE status IN ('RUNNING', 'COMPLETED')) RETURNING job_key),
                run AS (INSERT INTO %4$s AS r %5$s
                    SELECT cur.current_run_id, cur.job_key, cur.run_fire_key, cur.fencing_token, cur.owner, cur.node,
                        cur.run_trace_id, 'ABANDONED', cur.run_started_at, clock_timestamp(), ?
                    FROM cur WHERE EXISTS (SELECT 1 FROM cleared)
                        AND NOT EXISTS (SELECT 1 FROM %4$s x WHERE x.run_id = cur.current_run_id)
                    %6$s
                    RETURNING r.run_id)
                SELECT (SELECT count(*) FROM cleared), (SELECT count(*) FROM run), (SELECT status FROM prior),
                    %7$s""".formatted(currentRun(je, jr), je, CLEAR_LEASE, jr, RUN_COLUMNS, TAKE_OVER, notifyCleared);
    }

    /**
     * Two CTEs: {@code cur}, the job's running fire as its row (parameter: job) carries it, if its run id is the given one
     * (parameter: run id); {@code prior}, that run's status: its row's, or RUNNING while only the job row carries it
     * (parameter: run id).
     */
    private static String currentRun(String je, String jr) {
        return """
                cur AS (SELECT je.job_key, je.current_run_id, je.run_fire_key, je.run_started_at, je.run_trace_id,
                    je.node, je.owner, je.fencing_token FROM %1$s je
                    WHERE je.job_key = ? AND je.current_run_id = ?::uuid AND je.run_fire_key IS NOT NULL),
                prior AS (SELECT coalesce((SELECT status FROM %2$s WHERE run_id = ?::uuid),
                    (SELECT 'RUNNING' FROM cur)) AS status)""".formatted(je, jr);
    }

    /**
     * The parts both claim statements ({@link #claimAndStart}, {@link #claimAndStartMany}) are written with, as their
     * format arguments: 1 job table, 2 run table, 3 the new epoch, 4 {@link #PREVIOUS}, 5 the ABANDONED write of the
     * previous run, 6 schema, 7 {@link #SECOND_READ}.
     */
    private static Object[] claimParts(String je, String jr, String schema) {
        return new Object[] {
            je,
            jr,
            MICROS,
            PREVIOUS,
            abandonPrevious(jr, "abandoned", "late", "won", LEASE_ENDED),
            schema,
            SECOND_READ.formatted(je)
        };
    }

    /**
     * Reads the fire's completion, claims the job and starts the fire, in one statement (one commit), as
     * {@code claim} and {@code startRun} would in two:
     * <ul>
     * <li>{@code done}: the fire already COMPLETED, or was recorded MISSED: nothing is claimed (no epoch spent);</li>
     * <li>{@code free}: the job row locked (FOR UPDATE, waiting for open fenced transactions up to the lock timeout),
     *     only where no other owner's lease is live and the fire is not done;</li>
     * <li>{@code late}: the fire's completion read again once the row is locked, with a snapshot of its own
     *     ({@code settled_run}), when something may have completed it after the statement's snapshot
     *     ({@link #SECOND_READ}): a completion or MISSED record committed while the claim waited for the lock is seen,
     *     and the job is not claimed;</li>
     * <li>{@code won}: the claim; the job row turns RUNNING and carries the fire (run id, fire, start, trace id);</li>
     * <li>{@code abandoned}: the run the row carried before, whose holder's lease ended, gets its ABANDONED row;</li>
     * <li>no run row is written: the run's row is written once, at its end.</li>
     * </ul>
     * Parameters: 1 lock timeout, 2 job, 3 fire, 4 job, 5 owner, 6 fire, 7 owner, 8 node, 9 run id, 10 ttl ms, 11 fire,
     * 12 trace id, 13 job (the update reads the job row by its key, whatever the plan), 14 job. Columns: 1 kind
     * ({@code started}, {@code done}, {@code missed}, {@code held}), 2 epoch, 3 owner, 4 run id, 5 lease expiry,
     * 6 database now.
     */
    private static String claimAndStart(String je, String jr, String schema) {
        return """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                done AS (SELECT run_id, owner, epoch, status FROM %2$s WHERE job_key = ? AND fire_key = ?
                    AND status IN ('COMPLETED', 'MISSED')),
                free AS (SELECT je.job_key, %4$s FROM %1$s AS je, cfg WHERE je.job_key = ?
                    AND (je.lease_expires_at IS NULL OR je.lease_expires_at <= clock_timestamp() OR je.owner = ?)
                    AND NOT EXISTS (SELECT 1 FROM done) FOR UPDATE OF je),
                late AS (SELECT f.*, s.run_id AS done_run, s.owner AS done_owner, s.epoch AS done_epoch,
                    s.status AS done_status FROM free f LEFT JOIN LATERAL (SELECT * FROM %6$s.settled_run(f.job_key, ?)
                        WHERE %7$s) s ON true),
                won AS (UPDATE %1$s AS je SET fencing_token = greatest(je.fencing_token + 1, %3$s),
                    owner = ?, node = ?, status = 'RUNNING', current_run_id = ?::uuid, claimed_at = clock_timestamp(),
                    lease_expires_at = clock_timestamp() + ?::bigint * interval '1 millisecond',
                    run_fire_key = ?, run_started_at = clock_timestamp(), run_trace_id = ?,
                    updated_at = clock_timestamp() FROM late
                    WHERE je.job_key = late.job_key AND je.job_key = ? AND late.done_status IS NULL
                    RETURNING je.job_key AS job, je.fencing_token, je.lease_expires_at),
                %5$s
                SELECT 'started', w.fencing_token, NULL, NULL, w.lease_expires_at, clock_timestamp() FROM won w
                UNION ALL SELECT CASE WHEN d.status = 'MISSED' THEN 'missed' ELSE 'done' END, d.epoch, d.owner,
                    d.run_id::text, NULL, clock_timestamp() FROM done d
                UNION ALL SELECT CASE WHEN l.done_status = 'MISSED' THEN 'missed' ELSE 'done' END, l.done_epoch,
                    l.done_owner, l.done_run::text, NULL, clock_timestamp() FROM late l
                    WHERE l.done_status IS NOT NULL
                UNION ALL SELECT 'held', je.fencing_token, je.owner, NULL, je.lease_expires_at, clock_timestamp()
                    FROM %1$s je WHERE je.job_key = ? AND NOT EXISTS (SELECT 1 FROM free)
                    AND NOT EXISTS (SELECT 1 FROM done)""".formatted(claimParts(je, jr, schema));
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
     * key order, no job twice), fires, owners, run ids, TTLs in ms and trace ids (equal lengths), 8 node, 9 jobs.
     * Columns: 1 request number, then the one-claim statement's 6; a request whose job has no row gets none.
     */
    private static String claimAndStartMany(String je, String jr, String schema) {
        return """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                req AS (SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[])
                    WITH ORDINALITY AS q(job_key, fire_key, owner, run_id, ttl_ms, trace_id, n) ORDER BY job_key),
                done AS (SELECT req.n, d.run_id, d.owner, d.epoch, d.status FROM req JOIN %2$s AS d
                    ON d.job_key = req.job_key AND d.fire_key = req.fire_key WHERE d.status IN ('COMPLETED', 'MISSED')),
                free AS (SELECT f.*, req.n FROM req CROSS JOIN LATERAL (SELECT je.job_key, %4$s FROM %1$s AS je, cfg
                    WHERE je.job_key = req.job_key
                    AND (je.lease_expires_at IS NULL OR je.lease_expires_at <= clock_timestamp()
                        OR je.owner = req.owner)
                    AND NOT EXISTS (SELECT 1 FROM done WHERE done.n = req.n) FOR UPDATE OF je) f),
                late AS (SELECT f.*, s.run_id AS done_run, s.owner AS done_owner, s.epoch AS done_epoch,
                    s.status AS done_status FROM free f JOIN req ON req.n = f.n
                    LEFT JOIN LATERAL (SELECT * FROM %6$s.settled_run(f.job_key, req.fire_key) WHERE %7$s) s ON true),
                won AS (UPDATE %1$s AS je SET fencing_token = greatest(je.fencing_token + 1, %3$s),
                    owner = req.owner, node = ?, status = 'RUNNING', current_run_id = req.run_id::uuid,
                    claimed_at = clock_timestamp(),
                    lease_expires_at = clock_timestamp() + req.ttl_ms * interval '1 millisecond',
                    run_fire_key = req.fire_key, run_started_at = clock_timestamp(), run_trace_id = req.trace_id,
                    updated_at = clock_timestamp() FROM late JOIN req ON req.n = late.n
                    WHERE je.job_key = late.job_key AND late.done_status IS NULL AND je.job_key = ANY(?::text[])
                    RETURNING req.n, je.job_key AS job, req.fire_key AS fire, je.fencing_token, je.lease_expires_at),
                %5$s
                SELECT w.n, 'started', w.fencing_token, NULL, NULL, w.lease_expires_at, clock_timestamp() FROM won w
                UNION ALL SELECT d.n, CASE WHEN d.status = 'MISSED' THEN 'missed' ELSE 'done' END, d.epoch, d.owner,
                    d.run_id::text, NULL, clock_timestamp() FROM done d
                UNION ALL SELECT l.n, CASE WHEN l.done_status = 'MISSED' THEN 'missed' ELSE 'done' END, l.done_epoch,
                    l.done_owner, l.done_run::text, NULL, clock_timestamp() FROM late l
                    WHERE l.done_status IS NOT NULL
                UNION ALL SELECT req.n, 'held', je.fencing_token, je.owner, NULL, je.lease_expires_at,
                    clock_timestamp()
                    FROM req CROSS JOIN LATERAL (SELECT j.fencing_token, j.owner, j.lease_expires_at FROM %1$s j
                        WHERE j.job_key = req.job_key OFFSET 0) je
                    WHERE NOT EXISTS (SELECT 1 FROM free WHERE free.n = req.n)
                    AND NOT EXISTS (SELECT 1 FROM done WHERE done.n = req.n)""".formatted(claimParts(je, jr, schema));
    }

    /**
     * The fence check and the completion of a run, in the caller's transaction: the job row locked ({@code f}) and its
     * holder and running fire read; the run's row written COMPLETED under that holder ({@code done}), from what the job
     * row carries, if it still carries this run; with {@code release}, the lease cleared under the same check
     * ({@code cleared}) and waiters notified at the commit. The run row is written once, here, in the business
     * transaction: it commits with the caller's writes or not at all.
     *
     * <p>At READ COMMITTED the row read is the latest committed one, and the check is made here. With {@code release}
     * the row is locked FOR NO KEY UPDATE first (a claim waits for the commit; the holder's own renewals are held back
     * by its client); otherwise FOR KEY SHARE. At REPEATABLE READ or SERIALIZABLE ({@code iso.rc} false) the row read is
     * the transaction's snapshot, which predates any renewal committed since: the row is locked FOR KEY SHARE only
     * (which a renewal does not conflict with; a lock or update of the row would fail with 40001), the run is completed
     * whatever the snapshot says of the lease's expiry, the lease is not cleared, and the caller checks the latest
     * committed row itself (the lock covers it) before it lets the transaction commit.
     *
     * <p>Parameters: 1 the job's tag ({@link #ISO}), 2 job (with {@code release}: 2 and 3 job), then epoch, owner, run
     * id; with {@code release} job, epoch, owner; then run id, run id; with {@code release} the notify's. Columns: 1-4
     * the holder (epoch, owner, expiry, live; null when the row is missing from the snapshot), 5 runs completed now, 6
     * the run's status before (its row's; RUNNING while only the job row carries it), 7 read committed; with
     * {@code release} 8 leases cleared.
     */
    private static String completion(String je, String jr, boolean release, String notify) {
        String columns = "job_key, fencing_token, owner, node, lease_expires_at, "
                + "coalesce(lease_expires_at > clock_timestamp(), false) AS live, current_run_id, run_fire_key, "
                + "run_started_at, run_trace_id";
        String done = """
                done AS (INSERT INTO %1$s AS r %2$s
                    SELECT f.current_run_id, f.job_key, f.run_fire_key, f.fencing_token, f.owner, f.node, f.run_trace_id,
                        'COMPLETED', f.run_started_at, clock_timestamp(), NULL
                    FROM f, iso WHERE f.fencing_token = ? AND f.owner = ? AND (f.live OR NOT iso.rc)
                        AND f.current_run_id = ?::uuid AND f.run_fire_key IS NOT NULL
                    %3$s
                    RETURNING r.run_id)""".formatted(jr, RUN_COLUMNS, TAKE_OVER);
        String before = "coalesce((SELECT status FROM %s WHERE run_id = ?::uuid), ".formatted(jr)
                + "(SELECT 'RUNNING' FROM f x WHERE x.current_run_id = ?::uuid))";
        if (!release) {
            return """
                    WITH %1$s,
                    f AS (SELECT %2$s FROM %3$s WHERE job_key = ? FOR KEY SHARE),
                    %4$s
                    SELECT f.fencing_token, f.owner, f.lease_expires_at, f.live, (SELECT count(*) FROM done), %5$s,
                        iso.rc
                    FROM iso LEFT JOIN f ON true""".formatted(ISO, columns, je, done, before);
        }
        return """
                WITH %1$s,
                fw AS (SELECT %2$s FROM %3$s AS je, iso WHERE je.job_key = ? AND iso.rc FOR NO KEY UPDATE OF je),
                fs AS (SELECT %2$s FROM %3$s AS je, iso WHERE je.job_key = ? AND NOT iso.rc FOR KEY SHARE OF je),
                f AS (SELECT * FROM fw UNION ALL SELECT * FROM fs),
                %4$s,
                cleared AS (UPDATE %3$s AS je SET %6$s FROM fw
                    WHERE je.job_key = ? AND fw.fencing_token = ? AND fw.owner = ? AND fw.live RETURNING je.job_key)
                SELECT f.fencing_token, f.owner, f.lease_expires_at, f.live, (SELECT count(*) FROM done), %5$s,
                    iso.rc, (SELECT count(*) FROM cleared), %7$s
                FROM iso LEFT JOIN f ON true""".formatted(ISO, columns.replace("job_key,", "je.job_key,"), je, done, before, CLEAR_LEASE, notify);
    }

    /**
     * The outcome of a run, recorded by its holder in a statement of its own: the lease is cleared (or, for
     * {@code finish}, its run pointer) only under the holder's epoch and owner and only while the run is the holder's,
     * running or COMPLETED; the run's row is written with the outcome from what the job row carries of it. A run the
     * sweeper recorded MISSED (the fire's row MISSED, the holder's run kept as its previous one) is not: nothing is
     * recorded, and the lease is left to its holder's release. A run ABANDONED by a successor's claim (its holder was
     * paused or cut off, not dead: it reports back) turns REJECTED_STALE, so the history tells a refused stale holder
     * from a dead one (a killed holder's run stays ABANDONED); the abandon reason is kept in {@code error}. The statement
     * waits for a row lock at most its lock timeout (set first, as the claim's is): a completion of the run in a
     * transaction that has not ended holds the job row. Parameters: 1 lock timeout, 2 job, 3 run id, 4 run id, 5 job,
     * 6 epoch, 7 owner, 8 outcome, 9 error, 10 epoch, 11 error, 12 run id, 13 job, 14 epoch (then the notify's).
     * Columns: 1 lease rows matched (0 = fenced out, or the run is not the holder's), 2 the status recorded now (null if
     * none), 3 the run's status before this statement (its row's; RUNNING while only the job row carries it; null: no
     * run of that id; {@code COMPLETED} = completed earlier in the run's own business transaction). The status before
     * is the statement's snapshot: a run that changed while the statement waited for its lock is neither recorded nor
     * reported, and the caller reads it again.
     */
    private static String finish(String je, String jr, String set, String notify) {
        return """
                WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt),
                %1$s,
                cleared AS (UPDATE %2$s SET %3$s
                    FROM cfg WHERE job_key = ? AND fencing_token = ? AND owner = ?
                    AND EXISTS (SELECT 1 FROM prior WHERE status IN ('RUNNING', 'COMPLETED')) RETURNING job_key),
                written AS (INSERT INTO %4$s AS r %5$s
                    SELECT cur.current_run_id, cur.job_key, cur.run_fire_key, cur.fencing_token, cur.owner, cur.node,
                        cur.run_trace_id, CASE WHEN EXISTS (SELECT 1 FROM cleared) THEN ? ELSE 'REJECTED_STALE' END,
                        cur.run_started_at, clock_timestamp(), ?
                    FROM cur WHERE cur.fencing_token = ?
                        AND NOT EXISTS (SELECT 1 FROM %4$s x WHERE x.run_id = cur.current_run_id)
                    %6$s
                    RETURNING r.status),
                stale AS (UPDATE %4$s SET status = 'REJECTED_STALE', finished_at = clock_timestamp(),
                    error = nullif(concat_ws('; then its holder came back and was refused: ', error, ?::text), '')
                    FROM cfg WHERE run_id = ?::uuid AND job_key = ? AND epoch = ? AND status = 'ABANDONED'
                    AND NOT EXISTS (SELECT 1 FROM cleared) RETURNING status)
                SELECT (SELECT count(*) FROM cleared),
                    coalesce((SELECT status FROM written), (SELECT status FROM stale)), (SELECT status FROM prior),
                    %7$s""".formatted(currentRun(je, jr), je, set, jr, RUN_COLUMNS, TAKE_OVER, notify);
    }
}
