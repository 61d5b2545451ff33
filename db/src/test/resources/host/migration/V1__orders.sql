-- A host application's own migration, with Flyway's default history table (flyway_schema_history).
CREATE TABLE orders (id bigint PRIMARY KEY, settled boolean NOT NULL DEFAULT false);
