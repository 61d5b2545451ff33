-- Tenure ledger, version 8 (issue 37, "a run row written once"): the job row carries its running fire, and job_runs
-- shows every run, finished or running, as one row per fire.
--
-- The columns are nullable and without a default, so adding them rewrites no row and takes the exclusive lock only for
-- a moment. None is indexed: the updates of job_execution that set and clear them stay HOT.

-- The running fire of the job's current run (current_run_id), with the holder's epoch, owner and node on the same row:
-- set by the statement that starts the run, cleared with the run pointer.
ALTER TABLE ${schema}.job_execution
    ADD COLUMN IF NOT EXISTS run_fire_key   text,
    ADD COLUMN IF NOT EXISTS run_started_at timestamptz,
    ADD COLUMN IF NOT EXISTS run_trace_id   text;

-- Every run as people read it: the rows of job_run, and the running fire of each job whose run has no row of its own
-- yet, as a RUNNING row (its attempt counts the fire's earlier row, which it replaces in this view). A fire appears
-- once. The console, the CLI and the admin reads use it; the protocol's own statements use the tables.
CREATE OR REPLACE VIEW ${schema}.job_runs AS
SELECT r.run_id, r.job_key, r.fire_key, r.epoch, r.owner, r.node, r.status, r.attempt, r.previous_run_id,
       r.previous_status, r.started_at, r.finished_at, r.error, r.trace_id
FROM ${schema}.job_run r
WHERE NOT EXISTS (
    SELECT 1 FROM ${schema}.job_execution je
    WHERE je.job_key = r.job_key AND je.run_fire_key = r.fire_key AND je.status = 'RUNNING'
        AND je.current_run_id <> r.run_id
        AND NOT EXISTS (SELECT 1 FROM ${schema}.job_run x WHERE x.run_id = je.current_run_id))
UNION ALL
SELECT je.current_run_id, je.job_key, je.run_fire_key, je.fencing_token, je.owner, je.node, 'RUNNING',
       coalesce(p.attempt + 1, 1), p.run_id, p.status, je.run_started_at, NULL::timestamptz, NULL::text,
       je.run_trace_id
FROM ${schema}.job_execution je
LEFT JOIN ${schema}.job_run p ON p.job_key = je.job_key AND p.fire_key = je.run_fire_key
WHERE je.status = 'RUNNING' AND je.run_fire_key IS NOT NULL AND je.current_run_id IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM ${schema}.job_run x WHERE x.run_id = je.current_run_id);

-- The fire's COMPLETED or MISSED row, read with a snapshot of its own: a claim calls it after it has locked the job's
-- row, and sees a completion or a MISSED record committed while it waited for that lock, which the claim statement's
-- own snapshot (taken before the wait) does not show. VOLATILE and in PL/pgSQL, so that its query takes a new snapshot
-- (at READ COMMITTED, the level Tenure's own statements run at) and is never inlined into the caller's. ROWS 1: it
-- returns at most one row, and a planner that expected the default 1,000 would join the claim to the job table by a
-- scan of all of it.
CREATE OR REPLACE FUNCTION ${schema}.settled_run(p_job text, p_fire text)
    RETURNS TABLE (run_id uuid, owner text, epoch bigint, status text)
    LANGUAGE plpgsql VOLATILE ROWS 1 AS $$
BEGIN
    RETURN QUERY SELECT r.run_id, r.owner, r.epoch, r.status FROM ${schema}.job_run r
        WHERE r.job_key = p_job AND r.fire_key = p_fire AND r.status IN ('COMPLETED', 'MISSED');
END
$$;
