import org.jspecify.annotations.NullMarked;

/**
 * Tenure's core: the {@link dev.tenure.Tenure} entry point, coordinated jobs, leases and elections
 * ({@code dev.tenure}), what an integration with a host scheduler builds on ({@code dev.tenure.integration}: a claim
 * begun in one callback and finished in another), the interfaces a store implements ({@code dev.tenure.spi}), the in-memory store for tests
 * ({@code dev.tenure.memory}) and the meters and observations ({@code dev.tenure.metrics},
 * {@code dev.tenure.observation}). {@code dev.tenure.internal} holds helpers shared with Tenure's own store modules
 * and is exported to them alone.
 */
@NullMarked
module dev.tenure.core {
    requires transitive org.jspecify;
    requires transitive java.sql;
    requires java.management;
    requires org.slf4j;
    // Optional: meters and observations when Micrometer is present, Spring's transaction when spring-jdbc is
    requires static micrometer.core;
    requires static micrometer.observation;
    requires static micrometer.commons;
    requires static micrometer.tracing;
    requires static spring.jdbc;
    requires static spring.tx;

    exports dev.tenure;
    exports dev.tenure.integration;
    exports dev.tenure.spi;
    exports dev.tenure.memory;
    exports dev.tenure.metrics;
    exports dev.tenure.observation;
    exports dev.tenure.internal to
            dev.tenure.valkey,
            dev.tenure.db;

    uses dev.tenure.spi.DatabaseBackend;
    uses dev.tenure.spi.ValkeyBackend;
    uses dev.tenure.spi.ScheduleReader;
}
