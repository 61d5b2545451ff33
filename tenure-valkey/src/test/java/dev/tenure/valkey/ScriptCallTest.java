package dev.tenure.valkey;

import dev.tenure.ValkeyConfig;
import dev.tenure.ValkeyConfig.ScriptMode;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The command each {@link ScriptMode} sends, and the function library built from the one script body. */
class ScriptCallTest {

    private static final Op ACQUIRE = new Op(Op.ACQUIRE, "job", "tenure", "owner-1", 5_000, "1", false);

    @Test
    void command_evalshaMode_callsTheScriptBySha() {
        String[] cmd = new ScriptCall(ValkeyConfig.standalone("h:1").build()).command(List.of(ACQUIRE));

        assertThat(cmd).containsExactly("EVALSHA", LeaseScript.SHA, "4", "{tenure:job}:lease", "{tenure:job}:fence",
                "{tenure:job}:waiting", "{tenure:job}:queue", "p", "A", "owner-1", "5000", "1");
    }

    @Test
    void command_functionMode_callsTheVersionedFunctionWithTheSameArguments() {
        ValkeyConfig cfg = ValkeyConfig.cluster("h:1").scriptMode(ScriptMode.PRELOADED_FUNCTION).build();
        String[] cmd = new ScriptCall(cfg).command(List.of(ACQUIRE));

        assertThat(cmd).containsExactly("FCALL", ValkeyLeaseStore.functionName(), "4", "{tenure:job}:lease",
                "{tenure:job}:fence", "{tenure:job}:waiting", "{tenure:job}:queue", "s", "A", "owner-1", "5000", "1");
    }

    @Test
    void loneRelease_sendsTheShortForm_leaseAndMarkerAsKeys_ownerAsTheOneArgument() {
        Op release = new Op(Op.RELEASE, "job", "tenure", "owner-1", 200, "", false);

        assertThat(new ScriptCall(ValkeyConfig.standalone("h:1").build()).loneRelease(release))
                .containsExactly("EVALSHA", LeaseScript.SHA, "2", "{tenure:job}:lease", "{tenure:job}:waiting", "owner-1");
        assertThat(new ScriptCall(ValkeyConfig.cluster("h:1").scriptMode(ScriptMode.PRELOADED_FUNCTION).build()).loneRelease(release))
                .containsExactly("FCALL", ValkeyLeaseStore.functionName(), "2", "{tenure:job}:lease", "{tenure:job}:waiting", "owner-1");
    }

    @Test
    void functionLibrary_wrapsTheScriptBodyUnderItsHash() {
        String version = LeaseScript.SHA.substring(0, 12);

        assertThat(ValkeyLeaseStore.functionName()).isEqualTo("tenure_lease_" + version);
        assertThat(ValkeyLeaseStore.functionLibrary())
                .startsWith("#!lua name=tenure_" + version + "\n")
                .contains("redis.register_function('tenure_lease_" + version + "', function(KEYS, ARGV)\n" + LeaseScript.SOURCE + "end)");
    }

    @Test
    void failure_functionNotFound_namesTheFunctionAndTheInstallStep() {
        ScriptCall call = new ScriptCall(ValkeyConfig.standalone("h:1").scriptMode(ScriptMode.PRELOADED_FUNCTION).build());

        assertThat(call.failure(ACQUIRE, new RuntimeException("Function not found")))
                .hasMessageContaining("lease 'job'").hasMessageContaining(ValkeyLeaseStore.functionName())
                .hasMessageContaining("ValkeyLeaseStore.installFunction(adminConfig)").hasMessageContaining("FUNCTION LOAD REPLACE");
        assertThat(call.needsLoad(new RuntimeException("NOSCRIPT No matching script"))).as("never loads in function mode").isFalse();
    }

    @Test
    void failure_evalshaMode_keepsTheServersMessage() {
        ScriptCall call = new ScriptCall(ValkeyConfig.standalone("h:1").build());

        assertThat(call.failure(ACQUIRE, new RuntimeException("Function not found")))
                .hasMessage("Valkey call for lease 'job' failed: Function not found (RuntimeException)");
        assertThat(call.needsLoad(new RuntimeException("NOSCRIPT No matching script"))).isTrue();
    }
}
