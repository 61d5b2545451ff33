import org.jspecify.annotations.NullMarked;

/** Tenure for Spring Batch: {@link dev.tenure.batch.TenureBatch} guards a job's steps with the fire's lease. */
@NullMarked
module dev.tenure.batch {
    requires transitive org.jspecify;
    requires transitive dev.tenure.core;
    requires transitive spring.batch.core;
    requires transitive spring.batch.infrastructure;
    requires spring.core;
    requires spring.jdbc;
    requires spring.tx;
    requires org.slf4j;

    exports dev.tenure.batch;
}
