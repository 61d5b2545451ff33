-- The invoicing test application's table: no unique key on the slot, so only Tenure keeps each slot once.
CREATE TABLE invoice (
    job        text        NOT NULL,
    slot       text        NOT NULL,
    instance   text        NOT NULL,
    epoch      bigint      NOT NULL,
    created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
