/** A user's module: it reads Tenure's API through dev.tenure.db (which requires dev.tenure.core transitively). */
module consumer {
    requires dev.tenure.db;
    requires org.postgresql.jdbc;
}
