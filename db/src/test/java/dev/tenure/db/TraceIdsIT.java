package dev.tenure.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.spi.RunLedger;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Trace ids in the ledger (schema version 6): the statement that starts a run keeps its trace id on the run's row (the
 * two-step start and the one-statement claim-and-start alike); an attempt that takes the fire over writes its own, none
 * when it is not traced, so the row never shows an earlier attempt's trace.
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
    void startRun_keepsTheTraceId_andATakeOverWritesItsOwn_orNone() {
        String key = "traces-" + UUID.randomUUID();
        long e1 = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Duration.ofSeconds(30))).epoch();
        RunStart.Started run = (RunStart.Started) fx.runs.start(key, "f1", e1, "A", TRACE_1);
        assertThat(traceId(key, "f1")).isEqualTo(TRACE_1);
        fx.runs.finish(key, e1, "A", run.runId(), RunStatus.FAILED, "boom");
        assertThat(traceId(key, "f1")).as("kept with the outcome").isEqualTo(TRACE_1);
        fx.leases.releaseEpoch(key, e1, "A");

        long e2 = ((ClaimResult.Claimed) fx.leases.claim(key, "B", Duration.ofSeconds(30))).epoch();
        RunStart.Started again = (RunStart.Started) fx.runs.start(key, "f1", e2, "B", TRACE_2);
        assertThat(traceId(key, "f1")).as("the take-over's own trace").isEqualTo(TRACE_2);
        fx.runs.finish(key, e2, "B", again.runId(), RunStatus.FAILED, "boom");
        fx.leases.releaseEpoch(key, e2, "B");

        long e3 = ((ClaimResult.Claimed) fx.leases.claim(key, "C", Duration.ofSeconds(30))).epoch();
        fx.runs.start(key, "f1", e3, "C");
        assertThat(traceId(key, "f1"))
                .as("an untraced take-over shows no earlier attempt's trace")
                .isNull();
    }

    @Test
    void claimAndStart_keepsTheTraceId_andATakeOverWritesItsOwn_orNone() {
        String key = "traces-" + UUID.randomUUID();
        RunLedger.FireClaim.Started first =
                (RunLedger.FireClaim.Started) fx.runs.claimAndStart(key, "f1", "A", Duration.ofSeconds(30), TRACE_1);
        assertThat(traceId(key, "f1")).isEqualTo(TRACE_1);
        fx.runs.finishAndRelease(key, first.epoch(), "A", first.runId(), false, "boom");

        RunLedger.FireClaim.Started second =
                (RunLedger.FireClaim.Started) fx.runs.claimAndStart(key, "f1", "B", Duration.ofSeconds(30), TRACE_2);
        assertThat(traceId(key, "f1")).isEqualTo(TRACE_2);
        fx.runs.finishAndRelease(key, second.epoch(), "B", second.runId(), false, "boom");

        fx.runs.claimAndStart(key, "f1", "C", Duration.ofSeconds(30));
        assertThat(traceId(key, "f1")).as("an untraced take-over").isNull();
    }

    @Test
    void recordTraceId_keepsItOnTheRunsRow_onlyWhileTheRunIdNamesIt() {
        String key = "traces-" + UUID.randomUUID();
        long e1 = ((ClaimResult.Claimed) fx.leases.claim(key, "A", Duration.ofSeconds(30))).epoch();
        RunStart.Started run = (RunStart.Started) fx.runs.start(key, "f1", e1, "A");
        fx.runs.recordTraceId(key, run.runId().toString(), TRACE_1);
        assertThat(traceId(key, "f1")).isEqualTo(TRACE_1);
        fx.runs.finish(key, e1, "A", run.runId(), RunStatus.FAILED, "boom");
        fx.leases.releaseEpoch(key, e1, "A");
        long e2 = ((ClaimResult.Claimed) fx.leases.claim(key, "B", Duration.ofSeconds(30))).epoch();
        fx.runs.start(key, "f1", e2, "B", TRACE_2);
        fx.runs.recordTraceId(key, run.runId().toString(), TRACE_1);
        assertThat(traceId(key, "f1"))
                .as("the old attempt's run id no longer names the row")
                .isEqualTo(TRACE_2);
    }

    private static String traceId(String key, String fire) {
        String t = fx.query("SELECT coalesce(trace_id, '-') FROM tenure.job_runs WHERE job_key = '" + key
                        + "' AND fire_key = '" + fire + "'")
                .get(0);
        return t.equals("-") ? null : t;
    }
}
