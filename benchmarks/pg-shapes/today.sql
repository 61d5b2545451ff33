-- see ../run-pg-shapes.sh
\set k random(1, 1000)
\set f random(1, 1000000000000)
WITH cfg AS (SELECT set_config('lock_timeout', '200', true) AS lt),
done AS (SELECT run_id, owner, epoch, status FROM tenure.job_run WHERE job_key = 'j' || :k AND fire_key = 'f' || :f AND status IN ('COMPLETED', 'MISSED')),
free AS (SELECT je.job_key FROM tenure.job_execution AS je, cfg WHERE je.job_key = 'j' || :k
    AND (je.lease_expires_at IS NULL OR je.lease_expires_at <= clock_timestamp() OR je.owner = 'o' || :f)
    AND NOT EXISTS (SELECT 1 FROM done) FOR UPDATE OF je),
won AS (UPDATE tenure.job_execution AS je SET fencing_token = greatest(je.fencing_token + 1, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint),
    owner = 'o' || :f, node = 'node-1', status = 'RUNNING', current_run_id = md5('r' || :f)::uuid, claimed_at = clock_timestamp(),
    lease_expires_at = clock_timestamp() + 30000::bigint * interval '1 millisecond',
    updated_at = clock_timestamp() FROM free
    WHERE je.job_key = free.job_key RETURNING je.fencing_token, je.lease_expires_at),
abandoned AS (UPDATE tenure.job_run SET status = 'ABANDONED', finished_at = clock_timestamp(),
    error = 'the lease of ' || coalesce(node || '#' || left(owner, 4), owner) || ' (epoch ' || epoch || ') ended while the run was RUNNING'
    WHERE job_key = 'j' || :k AND fire_key <> 'f' || :f AND status = 'RUNNING'
    AND epoch < (SELECT fencing_token FROM won)),
run AS (INSERT INTO tenure.job_run AS r
    (run_id, job_key, fire_key, epoch, owner, node, trace_id, status, started_at)
    SELECT md5('r' || :f)::uuid, 'j' || :k, 'f' || :f, won.fencing_token, 'o' || :f, 'node-1', NULL, 'RUNNING', clock_timestamp() FROM won
    ON CONFLICT (job_key, fire_key) DO UPDATE SET run_id = excluded.run_id, epoch = excluded.epoch,
        owner = excluded.owner, node = excluded.node, trace_id = excluded.trace_id, status = 'RUNNING',
        attempt = r.attempt + 1, previous_run_id = r.run_id,
        previous_status = CASE WHEN r.status = 'RUNNING' THEN 'ABANDONED' ELSE r.status END,
        started_at = clock_timestamp(), finished_at = NULL, error = NULL
    WHERE r.status IN ('FAILED', 'ABANDONED', 'REJECTED_STALE', 'RUNNING') RETURNING r.attempt)
SELECT 'started' AS kind, w.fencing_token AS epoch FROM won w
UNION ALL SELECT 'held', je.fencing_token FROM tenure.job_execution je WHERE je.job_key = 'j' || :k AND NOT EXISTS (SELECT 1 FROM won) AND NOT EXISTS (SELECT 1 FROM done) \gset
BEGIN;
INSERT INTO public.biz(job, fire) VALUES ('j' || :k, 'f' || :f);
WITH iso AS (SELECT current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') AS rc,
    (SELECT pg_try_advisory_xact_lock_shared(t.k) FROM (SELECT :k::bigint AS k) t) AS tagged),
fw AS (SELECT fencing_token, owner, lease_expires_at,
    coalesce(lease_expires_at > clock_timestamp(), false) AS live FROM tenure.job_execution AS je, iso
    WHERE je.job_key = 'j' || :k AND iso.rc FOR NO KEY UPDATE OF je),
fs AS (SELECT fencing_token, owner, lease_expires_at,
    coalesce(lease_expires_at > clock_timestamp(), false) AS live FROM tenure.job_execution AS je, iso
    WHERE je.job_key = 'j' || :k AND NOT iso.rc FOR KEY SHARE OF je),
f AS (SELECT * FROM fw UNION ALL SELECT * FROM fs),
done AS (UPDATE tenure.job_run AS r SET status = 'COMPLETED', finished_at = clock_timestamp(), error = NULL
    FROM f, iso WHERE f.fencing_token = :epoch AND f.owner = 'o' || :f AND (f.live OR NOT iso.rc)
    AND r.run_id = md5('r' || :f)::uuid AND r.job_key = 'j' || :k AND r.epoch = f.fencing_token AND r.status = 'RUNNING'
    RETURNING r.run_id),
cleared AS (UPDATE tenure.job_execution AS je SET owner = NULL, node = NULL, status = 'IDLE', lease_expires_at = NULL, current_run_id = NULL,
            updated_at = clock_timestamp() FROM fw
    WHERE je.job_key = 'j' || :k AND fw.fencing_token = :epoch AND fw.owner = 'o' || :f AND fw.live RETURNING je.job_key)
SELECT f.fencing_token, (SELECT count(*) FROM done) AS ndone, (SELECT count(*) FROM cleared) AS ncleared
FROM iso LEFT JOIN f ON true;
COMMIT;
