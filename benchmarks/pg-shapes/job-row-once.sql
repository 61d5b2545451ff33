-- see ../run-pg-shapes.sh
-- steps 2 and 3 of issue 37: the run row written once, at the completion, and the job row once, at the claim (the
-- completion leaves it; the next claim finds the job free because its current run COMPLETED)
\set k random(1, 1000)
\set f random(1, 1000000000000)
WITH cfg AS (SELECT set_config('lock_timeout', '200', true) AS lt),
done AS (SELECT run_id, owner, epoch, status FROM tenure.job_run WHERE job_key = 'j' || :k AND fire_key = 'f' || :f AND status IN ('COMPLETED', 'MISSED')),
free AS (SELECT je.job_key FROM tenure.job_execution AS je, cfg WHERE je.job_key = 'j' || :k
    AND (je.lease_expires_at IS NULL OR je.lease_expires_at <= clock_timestamp() OR je.owner = 'o' || :f
        OR EXISTS (SELECT 1 FROM tenure.job_run d WHERE d.run_id = je.current_run_id AND d.status = 'COMPLETED'))
    AND NOT EXISTS (SELECT 1 FROM done) FOR UPDATE OF je),
won AS (UPDATE tenure.job_execution AS je SET fencing_token = greatest(je.fencing_token + 1, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint),
    owner = 'o' || :f, node = 'node-1', status = 'RUNNING', current_run_id = md5('r' || :f)::uuid, claimed_at = clock_timestamp(),
    lease_expires_at = clock_timestamp() + 30000::bigint * interval '1 millisecond',
    updated_at = clock_timestamp(), run_fire_key = 'f' || :f, run_started_at = clock_timestamp(), run_trace_id = NULL FROM free
    WHERE je.job_key = free.job_key RETURNING je.fencing_token, je.lease_expires_at)
SELECT 'started' AS kind, w.fencing_token AS epoch FROM won w
UNION ALL SELECT 'held', je.fencing_token FROM tenure.job_execution je WHERE je.job_key = 'j' || :k AND NOT EXISTS (SELECT 1 FROM won) AND NOT EXISTS (SELECT 1 FROM done) \gset
BEGIN;
INSERT INTO public.biz(job, fire) VALUES ('j' || :k, 'f' || :f);
WITH iso AS (SELECT current_setting('transaction_isolation') IN ('read committed', 'read uncommitted') AS rc,
    (SELECT pg_try_advisory_xact_lock_shared(t.k) FROM (SELECT :k::bigint AS k) t) AS tagged),
f AS (SELECT job_key, fencing_token, owner, node, run_fire_key, run_started_at, run_trace_id, current_run_id, lease_expires_at,
    coalesce(lease_expires_at > clock_timestamp(), false) AS live FROM tenure.job_execution AS je
    WHERE je.job_key = 'j' || :k FOR KEY SHARE OF je),
done AS (INSERT INTO tenure.job_run AS r (run_id, job_key, fire_key, epoch, owner, node, trace_id, status, started_at, finished_at)
    SELECT f.current_run_id, f.job_key, f.run_fire_key, f.fencing_token, f.owner, f.node, f.run_trace_id, 'COMPLETED', f.run_started_at, clock_timestamp()
    FROM f, iso WHERE f.fencing_token = :epoch AND f.owner = 'o' || :f AND (f.live OR NOT iso.rc) AND f.current_run_id = md5('r' || :f)::uuid
    ON CONFLICT (job_key, fire_key) DO UPDATE SET run_id = excluded.run_id, epoch = excluded.epoch, owner = excluded.owner, status = 'COMPLETED',
        attempt = r.attempt + 1, previous_run_id = r.run_id, previous_status = r.status, started_at = excluded.started_at, finished_at = excluded.finished_at, error = NULL
    WHERE r.status IN ('FAILED', 'ABANDONED', 'REJECTED_STALE')
    RETURNING r.run_id)
SELECT f.fencing_token, (SELECT count(*) FROM done) AS ndone
FROM iso LEFT JOIN f ON true;
COMMIT;
