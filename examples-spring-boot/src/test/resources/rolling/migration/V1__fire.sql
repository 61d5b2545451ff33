-- The rolling-deploy test application's table: one row per fire it ran, no unique key on the slot, so only Tenure keeps
-- each fire once. version: the version of the application that ran it (v1 or v2).
CREATE TABLE fire (
    job        text        NOT NULL,
    slot       text        NOT NULL,
    instance   text        NOT NULL,
    version    text        NOT NULL,
    epoch      bigint      NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
