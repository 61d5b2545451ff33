-- The test applications' own table, migrated by Boot's Flyway (history: public.flyway_schema_history), next to
-- Tenure's schema (history: tenure.tenure_schema_history). No unique key on the slot: only Tenure keeps it once.
CREATE TABLE settlement_entry (
    slot       text        NOT NULL,
    epoch      bigint      NOT NULL,
    instance   text,
    settled_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
