-- Tenure ledger, version 3: every coordinated job's schedule, where the sweeper's account of its fires stands, and
-- MISSED runs (fires that were due and that the sweeper recorded as not run, with why).

-- One row per scheduled job, upserted by every instance at start-up. A schedule that differs from the stored one
-- replaces it; the replaced one is kept in previous_* (two versions of an application in a rolling deploy).
CREATE TABLE ${schema}.job_schedule (
    job_key             text        NOT NULL,
    kind                text        NOT NULL,
    expression          text        NOT NULL,
    policy              text        NOT NULL,
    integration         text        NOT NULL,
    registered_by       text        NOT NULL,
    registered_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    previous_kind       text,
    previous_expression text,
    previous_by         text,
    changed_at          timestamptz,
    -- every fire due at or before swept_until is accounted for: COMPLETED, FAILED or MISSED
    swept_until         timestamptz NOT NULL DEFAULT clock_timestamp(),
    swept_at            timestamptz,
    swept_by            text,
    next_due_at         timestamptz,
    overdue             integer     NOT NULL DEFAULT 0,
    missed_total        bigint      NOT NULL DEFAULT 0,
    last_missed_at      timestamptz,
    CONSTRAINT job_schedule_pk PRIMARY KEY (job_key),
    CONSTRAINT job_schedule_job_fk FOREIGN KEY (job_key) REFERENCES ${schema}.job_execution (job_key)
);

-- MISSED joins the run statuses. The new check only widens the old one, so every existing row satisfies it: it is
-- added NOT VALID, which skips a scan of a large job_run under an exclusive lock (new rows are checked all the same).
ALTER TABLE ${schema}.job_run DROP CONSTRAINT job_run_status_ck;
ALTER TABLE ${schema}.job_run ADD CONSTRAINT job_run_status_ck
    CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED', 'ABANDONED', 'REJECTED_STALE', 'MISSED')) NOT VALID;
