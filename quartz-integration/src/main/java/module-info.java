import org.jspecify.annotations.NullMarked;

/** Tenure for Quartz: {@link dev.tenure.quartz.QuartzCoordination} coordinates a scheduler's fires across nodes. */
@NullMarked
module dev.tenure.quartz {
    requires transitive org.jspecify;
    requires transitive dev.tenure.core;
    requires transitive org.quartz;
    requires org.slf4j;
    // optional: MicrometerFireMetrics, when Micrometer is present
    requires static micrometer.core;

    exports dev.tenure.quartz;

    provides dev.tenure.spi.ScheduleReader with
            dev.tenure.quartz.QuartzScheduleReader;
}
