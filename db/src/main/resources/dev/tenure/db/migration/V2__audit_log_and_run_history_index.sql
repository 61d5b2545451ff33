-- Tenure ledger, version 2: operators' actions (force-release with a reason), and the index that keeps one job's run
-- history a bounded keyset query however large job_run grows.

CREATE TABLE ${schema}.audit_log (
    id        bigserial   NOT NULL,
    at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    actor     text        NOT NULL,
    action    text        NOT NULL,
    job_key   text        NOT NULL,
    reason    text        NOT NULL,
    old_epoch bigint,
    old_owner text,
    new_epoch bigint,
    CONSTRAINT audit_log_pk PRIMARY KEY (id),
    CONSTRAINT audit_log_reason_ck CHECK (length(reason) BETWEEN 1 AND 500),
    CONSTRAINT audit_log_actor_ck CHECK (length(actor) BETWEEN 1 AND 200)
);
CREATE INDEX audit_log_job_idx ON ${schema}.audit_log (job_key, id DESC);

-- One job's runs, newest first: keyset pagination on (started_at, run_id) and "fires in the last hour".
CREATE INDEX job_run_history_idx ON ${schema}.job_run (job_key, started_at DESC, run_id DESC);
