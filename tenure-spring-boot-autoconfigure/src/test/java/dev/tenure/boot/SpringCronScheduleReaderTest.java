package dev.tenure.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.Schedule;
import dev.tenure.spi.ScheduleReader;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The auto-configuration provides the reader of kind {@code spring-cron} on the class path, so a console or health
 * check that did not register a {@code @Scheduled(cron)} job walks its schedule from the ledger's text.
 */
class SpringCronScheduleReaderTest {

    @Test
    void theClassPathHasAReaderOfKindSpringCron_thatReadsWhatTheScheduleWrites() {
        Map<String, Function<String, Schedule>> readers =
                ScheduleReader.onClassPath(getClass().getClassLoader());
        assertThat(readers).containsKeys("spring-cron", "quartz"); // the Quartz integration is on this class path too
        SpringCronSchedule written = SpringCronSchedule.of("0 */15 * * * *", ZoneId.of("Asia/Seoul"));
        Schedule read = readers.get("spring-cron").apply(written.expression());
        Instant t = Instant.parse("2026-12-07T10:07:00Z");
        assertThat(read.nextAfter(t)).isEqualTo(written.nextAfter(t)).contains(Instant.parse("2026-12-07T10:15:00Z"));
        assertThatThrownBy(() -> readers.get("spring-cron").apply("0 */15 * * * *"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a Spring cron schedule");
    }
}
