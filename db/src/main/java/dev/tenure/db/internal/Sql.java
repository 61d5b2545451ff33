package dev.tenure.db.internal;

/**
 * The ledger's SQL, with the schema written into every table name (never {@code search_path}) and the database clock
 * ({@code clock_timestamp()}) for every time: {@code now()} would be the start of a possibly long transaction, and the
 * application's clock is never compared with the database's. One instance per schema; immutable.
 *
 * <p>A claim is one statement that first selects the row FOR NO KEY UPDATE where no other owner's lease is live, then
 * updates it; it is not an upsert. A row whose WHERE fails on the current version (someone's lease is live) is not
 * locked at all, so claims of a held key never queue behind each other, the holder's fence checks or its release.
 * Locking first and writing second matters when the claim has to wait for a fence lock (FOR SHARE): a plain UPDATE
 * would compute {@code claimed_at} and {@code lease_expires_at} before the wait, while here they are computed after
 * the lock is granted, that is after the older owner's transaction ended. Only a missing row is inserted
 * (ON CONFLICT DO NOTHING, then the claim again).
 *
 * <p>Statements that may wait for a row lock set their own {@code lock_timeout} first, in the same statement: a
 * one-row CTE calls {@code set_config('lock_timeout', ?, true)} (local to the statement's own transaction), and the
 * statement reads that CTE, so the setting is in force before any row is locked.
 */
public final class Sql {

    private static final String INTERVAL = "?::bigint * interval '1 millisecond'";
    private static final String CLEAR_LEASE = "owner = NULL, status = 'IDLE', lease_expires_at = NULL, "
            + "current_run_id = NULL, updated_at = clock_timestamp()";

    final String claim;
    final String claimNew;
    final String holder;
    final String renewEpoch;
    final String renewOwner;
    final String fence;
    final String releaseEpoch;
    final String releaseOwner;
    final String handOff;
    final String lockForRun;
    final String abandonOlderRuns;
    final String upsertRun;
    final String markRunning;
    final String runOf;
    final String finish;
    /** Like {@link #finish} but keeps the lease (the holder releases it next); parameters 1-7 only. */
    final String finishKeepingLease;

    /**
     * {@code pg_notify(channel, key)} once, only if a live {@code release_listener} row says someone listens on the
     * channel; parameters: channel, key, channel.
     */
    private static String notifyIfListened(String quotedSchema, String from) {
        return "(SELECT count(*) FROM (SELECT pg_notify(?, ?) FROM " + from + quotedSchema + ".release_listener l "
                + "WHERE l.channel = ? AND l.expires_at > clock_timestamp() LIMIT 1) n)";
    }

    public Sql(String quotedSchema) {
        String je = quotedSchema + ".job_execution";
        String jr = quotedSchema + ".job_run";
        claim = "WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt), "
                + "free AS (SELECT je.job_key FROM " + je + " AS je, cfg WHERE je.job_key = ? AND (je.lease_expires_at IS NULL "
                + "OR je.lease_expires_at <= clock_timestamp() OR je.owner = ?) FOR NO KEY UPDATE OF je), "
                + "won AS (UPDATE " + je + " AS je SET fencing_token = je.fencing_token + 1, owner = ?, status = 'HELD', "
                + "current_run_id = NULL, claimed_at = clock_timestamp(), lease_expires_at = clock_timestamp() + " + INTERVAL
                + ", updated_at = clock_timestamp() FROM free WHERE je.job_key = free.job_key "
                + "RETURNING je.fencing_token, je.owner, je.claimed_at, je.lease_expires_at) "
                + "SELECT true, fencing_token, owner, claimed_at, lease_expires_at, clock_timestamp() FROM won "
                + "UNION ALL SELECT false, fencing_token, owner, claimed_at, lease_expires_at, clock_timestamp() FROM " + je
                + " WHERE job_key = ? AND NOT EXISTS (SELECT 1 FROM won)";
        claimNew = "INSERT INTO " + je + " (job_key, fencing_token, owner, status, claimed_at, lease_expires_at) "
                + "VALUES (?, 1, ?, 'HELD', clock_timestamp(), clock_timestamp() + " + INTERVAL + ") "
                + "ON CONFLICT (job_key) DO NOTHING RETURNING fencing_token, claimed_at, lease_expires_at, clock_timestamp()";
        holder = "SELECT owner, fencing_token, claimed_at, lease_expires_at, clock_timestamp() FROM " + je
                + " WHERE job_key = ?";
        String renew = "WITH cfg AS (SELECT set_config('lock_timeout', ?, true) AS lt) "
                + "UPDATE " + je + " AS je SET lease_expires_at = clock_timestamp() + " + INTERVAL
                + ", updated_at = clock_timestamp() FROM cfg WHERE je.job_key = ? AND ";
        String renewTail = " AND je.lease_expires_at > clock_timestamp() RETURNING je.lease_expires_at, clock_timestamp()";
        renewEpoch = renew + "je.fencing_token = ?" + renewTail;
        renewOwner = renew + "je.owner = ?" + renewTail;
        fence = "SELECT fencing_token, owner, lease_expires_at, coalesce(lease_expires_at > clock_timestamp(), false) FROM "
                + je + " WHERE job_key = ? FOR SHARE";
        String release = "WITH r AS (UPDATE " + je + " SET " + CLEAR_LEASE + " WHERE job_key = ? AND ";
        String releaseTail = " AND owner IS NOT NULL RETURNING updated_at) SELECT updated_at, " + notifyIfListened(quotedSchema, "")
                + " FROM r";
        releaseEpoch = release + "fencing_token = ?" + releaseTail;
        releaseOwner = release + "owner = ?" + releaseTail;
        handOff = "UPDATE " + je + " SET owner = ?, fencing_token = fencing_token + 1, status = 'HELD', "
                + "current_run_id = NULL, claimed_at = clock_timestamp(), lease_expires_at = clock_timestamp() + " + INTERVAL
                + ", updated_at = clock_timestamp() WHERE job_key = ? AND owner = ? "
                + "RETURNING fencing_token, lease_expires_at, clock_timestamp()";
        lockForRun = "SELECT fencing_token, owner, lease_expires_at, coalesce(lease_expires_at > clock_timestamp(), false) FROM "
                + je + " WHERE job_key = ? FOR NO KEY UPDATE";
        abandonOlderRuns = "UPDATE " + jr + " SET status = 'ABANDONED', finished_at = clock_timestamp(), "
                + "error = 'the lease of ' || owner || ' (epoch ' || epoch || ') ended while the run was RUNNING' "
                + "WHERE job_key = ? AND status = 'RUNNING' AND epoch < ?";
        upsertRun = "INSERT INTO " + jr + " AS r (run_id, job_key, fire_key, epoch, owner, status, started_at) "
                + "VALUES (?, ?, ?, ?, ?, 'RUNNING', clock_timestamp()) "
                + "ON CONFLICT (job_key, fire_key) DO UPDATE SET run_id = excluded.run_id, epoch = excluded.epoch, "
                + "owner = excluded.owner, status = 'RUNNING', attempt = r.attempt + 1, previous_run_id = r.run_id, "
                + "previous_status = r.status, started_at = clock_timestamp(), finished_at = NULL, error = NULL "
                + "WHERE r.status IN ('FAILED', 'ABANDONED', 'REJECTED_STALE') "
                + "RETURNING r.attempt, r.previous_status";
        markRunning = "UPDATE " + je + " SET status = 'RUNNING', current_run_id = ?, updated_at = clock_timestamp() "
                + "WHERE job_key = ? AND fencing_token = ?";
        runOf = "SELECT run_id, job_key, fire_key, epoch, owner, status, attempt, started_at, finished_at, error FROM "
                + jr + " WHERE job_key = ? AND fire_key = ?";
        finish = finish(je, jr, CLEAR_LEASE, notifyIfListened(quotedSchema, "cleared, "));
        finishKeepingLease = finish(je, jr, "status = 'HELD', current_run_id = NULL, updated_at = clock_timestamp()", "0");
    }

    private static String finish(String je, String jr, String set, String notify) {
        return "WITH cleared AS (UPDATE " + je + " SET " + set
                + " WHERE job_key = ? AND fencing_token = ? RETURNING job_key), "
                + "run AS (UPDATE " + jr + " SET status = CASE WHEN EXISTS (SELECT 1 FROM cleared) THEN ? "
                + "ELSE 'REJECTED_STALE' END, finished_at = clock_timestamp(), error = ? "
                + "WHERE run_id = ? AND job_key = ? AND epoch = ? AND status = 'RUNNING' RETURNING status) "
                + "SELECT (SELECT count(*) FROM cleared), (SELECT status FROM run), " + notify;
    }
}
