package dev.tenure.quartz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.spi.LeaseKeys;
import java.time.Instant;
import java.util.Date;
import org.junit.jupiter.api.Test;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.TriggerBuilder;
import org.quartz.impl.JobExecutionContextImpl;
import org.quartz.spi.OperableTrigger;
import org.quartz.spi.TriggerFiredBundle;

class FireKeysTest {

    private static final Instant SCHEDULED = Instant.parse("2026-12-02T10:15:00Z");
    private static final Instant FIRED_LATE = Instant.parse("2026-12-02T10:15:00.734Z");

    private static JobExecutionContext context(boolean recovering, Instant scheduled, String originalMillis) {
        JobDetail job =
                JobBuilder.newJob(NoOp.class).withIdentity("settle", "billing").build();
        TriggerBuilder<?> tb = TriggerBuilder.newTrigger().withIdentity("t", "billing");
        if (originalMillis != null) {
            tb.usingJobData(Scheduler.FAILED_JOB_ORIGINAL_TRIGGER_SCHEDULED_FIRETIME_IN_MILLISECONDS, originalMillis);
        }
        OperableTrigger trigger = (OperableTrigger) tb.build();
        TriggerFiredBundle bundle = new TriggerFiredBundle(
                job,
                trigger,
                null,
                recovering,
                Date.from(FIRED_LATE),
                scheduled == null ? null : Date.from(scheduled),
                null,
                null);
        return new JobExecutionContextImpl(null, bundle, new NoOp());
    }

    @Test
    void fireKey_isTheScheduledFireTime_notTheNodesFireTime() {
        assertThat(FireKeys.fireKey(context(false, SCHEDULED, null))).isEqualTo("2026-12-02T10:15:00Z");
    }

    @Test
    void fireKey_recoveringFire_usesTheScheduledTimeOfTheFireItRecovers() {
        String original = Long.toString(Instant.parse("2026-12-02T09:00:00Z").toEpochMilli());
        assertThat(FireKeys.fireKey(context(true, SCHEDULED, original))).isEqualTo("2026-12-02T09:00:00Z");
    }

    @Test
    void fireKey_withoutScheduledTime_fallsBackToTheFireTime() {
        assertThat(FireKeys.fireKey(context(false, null, null))).isEqualTo("2026-12-02T10:15:00.734Z");
    }

    @Test
    void jobKey_encodesEachPart_soAnyQuartzKeyIsAValidDistinctLeaseKey() {
        String spaced = FireKeys.jobKey(JobKey.jobKey("nightly settle {eu}", "billing:core"));
        assertThat(LeaseKeys.validate(spaced)).isEqualTo(spaced);
        assertThat(spaced).isEqualTo("quartz:billing%3Acore:nightly+settle+%7Beu%7D");
        assertThat(FireKeys.jobKey(JobKey.jobKey("b", "a:x"))).isNotEqualTo(FireKeys.jobKey(JobKey.jobKey("x:b", "a")));
        assertThat(FireKeys.jobKey(JobKey.jobKey("settle", "DEFAULT"))).isEqualTo("quartz:DEFAULT:settle");
    }

    public static final class NoOp implements Job {
        @Override
        public void execute(JobExecutionContext context) {}
    }
}
