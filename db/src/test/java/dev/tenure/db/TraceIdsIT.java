package dev.tenure.db;

import dev.tenure.spi.RunLedger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Trace ids in the ledger (schema version 6): a run's trace id is kept on its row; an attempt that takes the fire over
 * (the two-step start and the one-statement claim-and-start alike) clears the earlier attempt's, until it records its
 * own.
 */
class TraceIdsIT {

    private static final String TRACE_1 = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String TRACE_2 = "00f067aa0ba902b700f067aa0ba902b7";
    private static Fixture fx;

    @BeforeAll
    static void start() {
        fx = Fixture.forClass(TraceIdsIT.class);
    }

    @AfterAll
    static void stop() {
        fx.close();
    }

    @Test
    void startedRun_keepsItsTraceId_andATakeOverClearsIt_untilItRecordsItsOwn() {
        String key = "traces-" + UUID.randomUUID();
        long e1 = ((ClaimResult.Claimed) fx.ledger.claim(key, "A", Duration.ofSeconds(30))).epoch();
        RunStart.Started run = (RunStart.Started) fx.ledger.startRun(key, "f1", e1, "A");
        assertThat(traceId(key, "f1")).isNull();
        fx.ledger.recordTraceId(key, run.runId(), TRACE_1);
        assertThat(traceId(key, "f1")).isEqualTo(TRACE_1);
        fx.ledger.recordOutcome(key, e1, "A", run.runId(), RunStatus.FAILED, "boom");
        assertThat(traceId(key, "f1")).as("kept with the outcome").isEqualTo(TRACE_1);
        fx.ledger.release(key, e1, "A");

        long e2 = ((ClaimResult.Claimed) fx.ledger.claim(key, "B", Duration.ofSeconds(30))).epoch();
        RunStart.Started again = (RunStart.Started) fx.ledger.startRun(key, "f1", e2, "B");
        assertThat(traceId(key, "f1")).as("the FAILED attempt's trace is not the new attempt's").isNull();
        fx.ledger.recordTraceId(key, again.runId(), TRACE_2);
        fx.ledger.recordTraceId(key, run.runId(), TRACE_1);
        assertThat(traceId(key, "f1")).as("the old attempt's run id no longer names the row").isEqualTo(TRACE_2);
    }

    @Test
    void claimAndStart_takingAFireOver_clearsTheEarlierAttemptsTraceId() {
        String key = "traces-" + UUID.randomUUID();
        RunLedger.FireClaim.Started first = (RunLedger.FireClaim.Started) fx.ledger.claimAndStart(key, "f1", "A",
                Duration.ofSeconds(30));
        fx.ledger.recordTraceId(key, UUID.fromString(first.runId()), TRACE_1);
        assertThat(traceId(key, "f1")).isEqualTo(TRACE_1);
        fx.ledger.finish(key, first.epoch(), "A", UUID.fromString(first.runId()), RunStatus.FAILED, "boom");

        RunLedger.FireClaim.Started second = (RunLedger.FireClaim.Started) fx.ledger.claimAndStart(key, "f1", "B",
                Duration.ofSeconds(30));
        assertThat(second.runId()).isNotEqualTo(first.runId());
        assertThat(traceId(key, "f1")).isNull();
    }

    private static String traceId(String key, String fire) {
        return fx.query("SELECT coalesce(trace_id, 'null') FROM tenure.job_run WHERE job_key = '" + key
                + "' AND fire_key = '" + fire + "'").get(0).equals("null") ? null
                : fx.query("SELECT trace_id FROM tenure.job_run WHERE job_key = '" + key + "' AND fire_key = '" + fire
                        + "'").get(0);
    }
}
