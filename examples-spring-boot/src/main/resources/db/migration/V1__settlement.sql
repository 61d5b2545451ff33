-- The application's own table, migrated by Boot's Flyway (history: public.flyway_schema_history), next to Tenure's
-- schema (history: tenure.tenure_schema_history). No unique key on the slot: only Tenure keeps each slot once.
CREATE TABLE settlement (
    slot       text        NOT NULL,
    amount     bigint      NOT NULL,
    instance   text        NOT NULL,
    epoch      bigint      NOT NULL,
    settled_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
