package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class JvmProcessIT {

    private static final Duration TIMEOUT = Timing.scaled(Duration.ofSeconds(20));

    @Test
    void start_echoMain_capturesOutputAndExitCode() {
        try (JvmProcess child = JvmProcess.start(ChildMain.class, "echo", "one", "two words")) {
            assertThat(child.waitFor(TIMEOUT)).hasValue(3);
            assertThat(child.stdoutLines()).containsExactly("arg:one", "arg:two words");
            assertThat(child.stderrLines()).containsExactly("done");
            assertThat(child.isAlive()).isFalse();
        }
    }

    @Test
    void pause_tickingChild_stopsOutputUntilResumed() {
        try (JvmProcess child = JvmProcess.start(ChildMain.class, "tick")) {
            child.awaitStdoutLine(line -> line.equals("tick 5"), TIMEOUT);

            child.pause();
            Await.sleep(Timing.scaledMillis(200)); // let output already in flight land
            int frozen = child.stdoutLines().size();
            Await.sleep(300);
            assertThat(child.stdoutLines()).hasSize(frozen);
            assertThat(child.isAlive()).isTrue();

            child.resume();
            child.awaitStdoutLine(line -> line.equals("tick " + (frozen + 5)), TIMEOUT);
        }
    }

    @Test
    void kill_runningChild_endsItAndCloseIsIdempotent() {
        JvmProcess child = JvmProcess.start(ChildMain.class, "tick");
        long pid = child.pid();
        child.awaitStdoutLine("READY"::equals, TIMEOUT);

        child.kill();

        assertThat(child.isAlive()).isFalse();
        assertThat(ProcessHandle.of(pid)).isEmpty();
        assertThat(child.waitFor(Duration.ZERO)).hasValue(137);
        child.close();
        child.close();
    }
}
