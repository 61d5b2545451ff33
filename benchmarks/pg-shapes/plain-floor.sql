-- see ../run-pg-shapes.sh
\set k random(1, 1000)
\set f random(1, 1000000000000)
UPDATE tenure.job_execution SET fencing_token = fencing_token + 1, owner = 'o' || :f, lease_expires_at = clock_timestamp() + interval '30 s' WHERE job_key = 'j' || :k;
BEGIN;
INSERT INTO public.biz(job, fire) VALUES ('j' || :k, 'f' || :f);
INSERT INTO tenure.job_run (run_id, job_key, fire_key, epoch, owner, node, status, started_at, finished_at) VALUES (md5('r' || :f)::uuid, 'j' || :k, 'f' || :f, 1, 'o' || :f, 'n', 'COMPLETED', clock_timestamp(), clock_timestamp());
UPDATE tenure.job_execution SET owner = NULL, lease_expires_at = NULL WHERE job_key = 'j' || :k;
COMMIT;
