-- Tenure ledger, version 7: schedules are data. The ledger, not a process's memory, holds each schedule: its versions,
-- its state (active, paused, retired) with the spans in which it had no due fires, the application that registers it,
-- its missed-fire policy, and catch-ups waiting for a process that has the job's code. The ledger also gets an id of
-- its own, so that a completed-fire marker in a Valkey shared by several ledgers answers only for its own.

-- One row: this ledger's id, made once.
CREATE TABLE ${schema}.tenure_ledger (
    id         uuid        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT tenure_ledger_pk PRIMARY KEY (id)
);
INSERT INTO ${schema}.tenure_ledger (id) VALUES (gen_random_uuid());

ALTER TABLE ${schema}.job_schedule
    -- who registers it: the sweeper elected for this application accounts for its fires
    ADD COLUMN application    text        NOT NULL DEFAULT 'default',
    ADD COLUMN state          text        NOT NULL DEFAULT 'ACTIVE',
    ADD COLUMN state_since    timestamptz,
    ADD COLUMN state_reason   text,
    ADD COLUMN state_by       text,
    -- the current version, accounted for from version_from (null: from the start)
    ADD COLUMN version        integer     NOT NULL DEFAULT 1,
    ADD COLUMN version_from   timestamptz,
    -- the missed-fire policy, for a sweeper that does not have the job's code
    ADD COLUMN policy_action  text        NOT NULL DEFAULT 'CATCH_UP',
    ADD COLUMN max_catch_ups  integer     NOT NULL DEFAULT 10,
    ADD COLUMN max_age_ms     bigint      NOT NULL DEFAULT 3600000,
    ADD COLUMN grace_ms       bigint      NOT NULL DEFAULT 5000,
    -- the last time a live process registered it (its registration is refreshed while the process lives)
    ADD COLUMN seen_at        timestamptz,
    -- when the sweeper looks at it next (null: at the next sweep)
    ADD COLUMN check_at       timestamptz,
    -- why the last sweep of this job failed, if it did (a broken schedule delays only its own job)
    ADD COLUMN sweep_error    text,
    ADD CONSTRAINT job_schedule_state_ck CHECK (state IN ('ACTIVE', 'PAUSED', 'RETIRED')),
    ADD CONSTRAINT job_schedule_action_ck CHECK (policy_action IN ('CATCH_UP', 'SKIP', 'ALERT_ONLY'));
UPDATE ${schema}.job_schedule SET seen_at = registered_at, check_at = clock_timestamp();

CREATE INDEX job_schedule_check_idx ON ${schema}.job_schedule (application, check_at) WHERE state <> 'RETIRED';

-- Every version of every schedule: version n is accounted for from valid_from (null: from the start) until valid_until
-- (null: the current one).
CREATE TABLE ${schema}.job_schedule_version (
    job_key       text        NOT NULL,
    version       integer     NOT NULL,
    kind          text        NOT NULL,
    expression    text        NOT NULL,
    policy        text        NOT NULL,
    registered_by text        NOT NULL,
    valid_from    timestamptz,
    valid_until   timestamptz,
    CONSTRAINT job_schedule_version_pk PRIMARY KEY (job_key, version),
    CONSTRAINT job_schedule_version_job_fk FOREIGN KEY (job_key) REFERENCES ${schema}.job_schedule (job_key)
);
INSERT INTO ${schema}.job_schedule_version (job_key, version, kind, expression, policy, registered_by)
    SELECT job_key, 1, kind, expression, policy, registered_by FROM ${schema}.job_schedule;

-- The spans in which a schedule had no due fires: PAUSED (an operator paused or unscheduled it) or RETIRED (no live
-- process registered it, or an operator retired it). until_at is null while the span lasts.
CREATE TABLE ${schema}.job_schedule_span (
    job_key  text        NOT NULL,
    state    text        NOT NULL,
    from_at  timestamptz NOT NULL,
    until_at timestamptz,
    reason   text        NOT NULL,
    set_by   text        NOT NULL,
    CONSTRAINT job_schedule_span_pk PRIMARY KEY (job_key, from_at),
    CONSTRAINT job_schedule_span_job_fk FOREIGN KEY (job_key) REFERENCES ${schema}.job_schedule (job_key),
    CONSTRAINT job_schedule_span_state_ck CHECK (state IN ('PAUSED', 'RETIRED'))
);

-- Catch-ups that the sweeper asks of the processes that have the job's code (the sweeper itself may not have it: a job
-- that only another version or role of the application registers). A process that has the job takes the row and runs
-- the fire through the coordinator, so the fire key keeps it exactly once.
CREATE TABLE ${schema}.job_catch_up (
    job_key      text        NOT NULL,
    fire_key     text        NOT NULL,
    due_at       timestamptz NOT NULL,
    requested_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    requested_by text        NOT NULL,
    CONSTRAINT job_catch_up_pk PRIMARY KEY (job_key, fire_key),
    CONSTRAINT job_catch_up_job_fk FOREIGN KEY (job_key) REFERENCES ${schema}.job_schedule (job_key)
);
