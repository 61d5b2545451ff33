package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ShutdownHookIT {

    @Test
    void jvmExit_serverNotClosed_isKilledByShutdownHook() {
        try (JvmProcess child = JvmProcess.start(ForgetfulMain.class)) {
            assertThat(child.waitFor(Timing.scaled(Duration.ofSeconds(30)))).hasValue(0);

            long pid = Long.parseLong(child.awaitStdoutLine(line -> line.startsWith("PID "), Duration.ZERO)
                    .substring(4));
            Path dir = Path.of(child.awaitStdoutLine(line -> line.startsWith("DIR "), Duration.ZERO)
                    .substring(4));
            assertThat(ProcessHandle.of(pid)).isEmpty();
            assertThat(dir).doesNotExist();
        }
    }
}
