package dev.tenure.testkit;

/** Where the Postgres server behind a {@link PostgresDatabase} came from, in the order they are tried. */
public enum PostgresSource {
    /** {@code TENURE_PG_URL} (with {@code TENURE_PG_USER} and {@code TENURE_PG_PASSWORD}). */
    ENVIRONMENT,
    /** A server answering on 127.0.0.1:5432 as user {@code postgres} without a password. */
    LOCAL_SERVER,
    /** Zonky's embedded Postgres, started once per JVM; the only source that can be restarted. */
    EMBEDDED,
    /** A Testcontainers {@code postgres:15-alpine} container, started once per JVM; needs Docker. */
    TESTCONTAINERS
}
