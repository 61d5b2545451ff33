import org.jspecify.annotations.NullMarked;

/**
 * Tenure's Postgres ledger: {@link dev.tenure.Tenure} finds it as a {@link dev.tenure.spi.DatabaseBackend}. Exports
 * {@code dev.tenure.db} for the schema, the pool and the operators' {@code TenureAdmin}.
 */
@NullMarked
module dev.tenure.db {
    requires transitive org.jspecify;
    requires transitive dev.tenure.core;
    requires transitive com.zaxxer.hikari;
    requires org.postgresql.jdbc;
    requires org.slf4j;
    // Flyway's jars have no module names of their own: these are the names Java derives from their file names
    requires flyway.core;
    requires flyway.database.postgresql;

    exports dev.tenure.db;
    // The migrations are resources that Flyway reads through a class loader, which finds a named module's resources
    // only in packages that are open to everyone (ClassLoader.getResource)
    opens dev.tenure.db.migration;

    provides dev.tenure.spi.DatabaseBackend with
            dev.tenure.db.JdbcBackend;
}
