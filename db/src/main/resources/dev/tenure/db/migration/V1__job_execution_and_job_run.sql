-- Tenure ledger, version 1. Every name is qualified with the schema placeholder (the Tenure schema, quoted), so
-- nothing here depends on search_path. Every timestamp comes from the database clock (clock_timestamp()).

-- One row per job key or election name. fencing_token is the epoch: it only ever grows, by one per claim.
CREATE TABLE ${schema}.job_execution (
    job_key          text        NOT NULL,
    fencing_token    bigint      NOT NULL DEFAULT 0,
    owner            text,
    status           text        NOT NULL DEFAULT 'IDLE',
    claimed_at       timestamptz,
    lease_expires_at timestamptz,
    current_run_id   uuid,
    created_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    updated_at       timestamptz NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT job_execution_pk PRIMARY KEY (job_key),
    CONSTRAINT job_execution_token_ck CHECK (fencing_token >= 0),
    CONSTRAINT job_execution_status_ck CHECK (status IN ('IDLE', 'HELD', 'RUNNING')),
    CONSTRAINT job_execution_lease_ck CHECK ((owner IS NULL) = (lease_expires_at IS NULL))
);

-- One row per (job key, fire key): a fire completes at most once. A FAILED, ABANDONED or REJECTED_STALE row is
-- taken over by the next attempt (new run_id, epoch and owner; attempt + 1; the previous run id and status kept).
CREATE TABLE ${schema}.job_run (
    run_id          uuid        NOT NULL,
    job_key         text        NOT NULL,
    fire_key        text        NOT NULL,
    epoch           bigint      NOT NULL,
    owner           text        NOT NULL,
    status          text        NOT NULL,
    attempt         integer     NOT NULL DEFAULT 1,
    previous_run_id uuid,
    previous_status text,
    started_at      timestamptz NOT NULL DEFAULT clock_timestamp(),
    finished_at     timestamptz,
    error           text,
    CONSTRAINT job_run_pk PRIMARY KEY (run_id),
    CONSTRAINT job_run_fire_uq UNIQUE (job_key, fire_key),
    CONSTRAINT job_run_job_fk FOREIGN KEY (job_key) REFERENCES ${schema}.job_execution (job_key),
    CONSTRAINT job_run_status_ck CHECK (status IN ('RUNNING', 'COMPLETED', 'FAILED', 'ABANDONED', 'REJECTED_STALE'))
);

-- startRun marks a job's RUNNING runs of older epochs ABANDONED: only RUNNING rows are indexed for that.
CREATE INDEX job_run_running_idx ON ${schema}.job_run (job_key, epoch) WHERE status = 'RUNNING';

-- Who listens for releases of which job (by NOTIFY channel), refreshed every 10 s by each listening connection.
-- Releases NOTIFY only when a live row exists: NOTIFY serialises committing transactions on a global lock, so
-- releases nobody waits for must not pay for it.
CREATE TABLE ${schema}.release_listener (
    channel    text        NOT NULL,
    listener   text        NOT NULL,
    expires_at timestamptz NOT NULL,
    CONSTRAINT release_listener_pk PRIMARY KEY (channel, listener)
);
