package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.Schedule;
import dev.tenure.spi.ScheduleReader;
import java.time.Instant;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The Quartz integration provides the reader of kind {@code quartz} on the class path, so a console or health check
 * that did not register a Quartz job walks its schedule from the ledger's text.
 */
class QuartzScheduleReaderTest {

    @Test
    void theClassPathHasAReaderOfKindQuartz_thatReadsWhatTheScheduleWrites() {
        Map<String, Function<String, Schedule>> readers =
                ScheduleReader.onClassPath(getClass().getClassLoader());
        assertThat(readers).containsKey("quartz");
        Schedule read = readers.get("quartz").apply("cron 0 */15 * * * ? (UTC)");
        assertThat(read.kind()).isEqualTo("quartz");
        assertThat(read.nextAfter(Instant.parse("2026-12-07T10:07:00Z")))
                .contains(Instant.parse("2026-12-07T10:15:00Z"));
        assertThatThrownBy(() -> readers.get("quartz").apply("every day")).isInstanceOf(IllegalArgumentException.class);
    }
}
