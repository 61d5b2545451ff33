package dev.tenure.valkey;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.ValkeyConfig;
import dev.tenure.ValkeyConfig.ScriptMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command each {@link ScriptMode} sends, and the function library built from the one script body. */
class ScriptCallTest {

    private static final Op ACQUIRE = new Op(Op.ACQUIRE, "job", "tenure", "owner-1", 5_000, "1", false);

    @Test
    void command_evalshaMode_callsTheScriptBySha() {
        String[] cmd = new ScriptCall(ValkeyConfig.standalone("h:1").build()).command(List.of(ACQUIRE));

        assertThat(cmd)
                .containsExactly(
                        "EVALSHA",
                        LeaseScript.SHA,
                        "4",
                        "{tenure:job}:lease",
                        "{tenure:job}:fence",
                        "{tenure:job}:waiting",
                        "{tenure:job}:queue",
                        "p",
                        "A",
                        "owner-1",
                        "5000",
                        "1");
    }

    @Test
    void command_functionMode_callsTheVersionedFunctionWithTheSameArguments() {
        ValkeyConfig cfg = ValkeyConfig.cluster("h:1")
                .scriptMode(ScriptMode.PRELOADED_FUNCTION)
                .build();
        String[] cmd = new ScriptCall(cfg).command(List.of(ACQUIRE));

        assertThat(cmd)
                .containsExactly(
                        "FCALL",
                        ValkeyFunctions.name(),
                        "4",
                        "{tenure:job}:lease",
                        "{tenure:job}:fence",
                        "{tenure:job}:waiting",
                        "{tenure:job}:queue",
                        "s",
                        "A",
                        "owner-1",
                        "5000",
                        "1");
    }

    @Test
    void loneRelease_sendsTheShortForm_leaseAndMarkerAsKeys_ownerAsTheOneArgument() {
        Op release = new Op(Op.RELEASE, "job", "tenure", "owner-1", 200, "", false);

        assertThat(new ScriptCall(ValkeyConfig.standalone("h:1").build()).loneRelease(release))
                .containsExactly(
                        "EVALSHA", LeaseScript.SHA, "2", "{tenure:job}:lease", "{tenure:job}:waiting", "owner-1");
        assertThat(new ScriptCall(ValkeyConfig.cluster("h:1")
                                .scriptMode(ScriptMode.PRELOADED_FUNCTION)
                                .build())
                        .loneRelease(release))
                .containsExactly(
                        "FCALL", ValkeyFunctions.name(), "2", "{tenure:job}:lease", "{tenure:job}:waiting", "owner-1");
    }

    /** The acquire for a fire and the release after its completion: their op codes and arguments, and the three answers. */
    @Test
    void fireOps_carryTheFireKey_andAnAcquireAnswersAcquiredHeldOrDone() throws Exception {
        Op fire = new Op(Op.ACQUIRE_FIRE, "job", "tenure", "owner-1", 5_000, "0:e.:r:7", false);
        Op completed = new Op(Op.RELEASE_COMPLETED, "job", "tenure", "owner-1", 5_000, "r:7", false);

        assertThat(new ScriptCall(ValkeyConfig.standalone("h:1").build()).command(List.of(fire, completed)))
                .endsWith("p", "F", "owner-1", "5000", "0:e.:r:7", "C", "owner-1", "5000", "r:7");
        fire.complete(2L, 1234L, "");
        assertThat(fire.future.get())
                .isEqualTo(new dev.tenure.spi.AcquireResult.AlreadyDone(java.time.Duration.ofMillis(1234)));
        Op held = new Op(Op.ACQUIRE_FIRE, "job", "tenure", "owner-2", 5_000, "0::r:7", false);
        held.complete(0L, 300L, "owner-1");
        assertThat(held.future.get())
                .isEqualTo(new dev.tenure.spi.AcquireResult.Held("owner-1", java.time.Duration.ofMillis(300)));
        Op granted = new Op(Op.ACQUIRE_FIRE, "job", "tenure", "owner-3", 5_000, "0::r:8", false);
        granted.complete(1L, 0L, "");
        assertThat(granted.future.get()).isInstanceOf(dev.tenure.spi.AcquireResult.Acquired.class);
        completed.complete(1L, 0L, "");
        assertThat(completed.future.get()).isEqualTo(true);
    }

    @Test
    void functionLibrary_wrapsTheScriptBodyUnderItsHash() {
        String version = LeaseScript.SHA.substring(0, 12);

        assertThat(ValkeyFunctions.name()).isEqualTo("tenure_lease_" + version);
        assertThat(ValkeyFunctions.library())
                .startsWith("#!lua name=tenure_" + version + "\n")
                .contains("redis.register_function('tenure_lease_" + version + "', function(KEYS, ARGV)\n"
                        + LeaseScript.SOURCE + "end)");
    }

    @Test
    void failure_functionNotFound_namesTheFunctionAndTheInstallStep() {
        ScriptCall call = new ScriptCall(ValkeyConfig.standalone("h:1")
                .scriptMode(ScriptMode.PRELOADED_FUNCTION)
                .build());

        assertThat(call.failure(ACQUIRE, new RuntimeException("Function not found")))
                .hasMessageContaining("lease 'job'")
                .hasMessageContaining(ValkeyFunctions.name())
                .hasMessageContaining("ValkeyFunctions.install(adminConfig)")
                .hasMessageContaining("FUNCTION LOAD REPLACE");
        assertThat(call.needsLoad(new RuntimeException("NOSCRIPT No matching script")))
                .as("never loads in function mode")
                .isFalse();
    }

    @Test
    void failure_evalshaMode_keepsTheServersMessage() {
        ScriptCall call = new ScriptCall(ValkeyConfig.standalone("h:1").build());

        assertThat(call.failure(ACQUIRE, new RuntimeException("Function not found")))
                .hasMessage("Valkey call for lease 'job' failed: Function not found (RuntimeException)");
        assertThat(call.needsLoad(new RuntimeException("NOSCRIPT No matching script")))
                .isTrue();
    }
}
