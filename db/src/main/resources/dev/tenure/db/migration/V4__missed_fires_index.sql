-- Tenure ledger, version 4: the fires recorded MISSED, newest first, of one job or of all, in a time window (the
-- console's job list, job page and `missed` command, the actuator endpoint), read without visiting job_run's other rows.
-- Partial: only MISSED rows are in it, so it stays small. status is already in job_run_running_idx's predicate, so
-- no update of a run loses a HOT update because of it.
--
-- Built CONCURRENTLY, so a large job_run keeps taking writes while it is built (a plain CREATE INDEX would hold a SHARE
-- lock for the whole scan, and every claim, start and outcome of every job would wait). Flyway runs this migration
-- outside a transaction for that. If it fails half-way it leaves an invalid index behind: drop it
-- (DROP INDEX CONCURRENTLY <schema>.job_run_missed_idx), repair Flyway's history and migrate again.
CREATE INDEX CONCURRENTLY IF NOT EXISTS job_run_missed_idx ON ${schema}.job_run (job_key, finished_at DESC)
    WHERE status = 'MISSED';
