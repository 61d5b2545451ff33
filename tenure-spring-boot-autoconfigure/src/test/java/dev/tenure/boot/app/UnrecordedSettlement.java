package dev.tenure.boot.app;

import dev.tenure.boot.Coordinated;
import java.util.concurrent.TimeUnit;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A {@code @Coordinated} method that stops at a gate and then throws: a test locks the fire's run row meanwhile, so
 * that the outcome cannot be recorded. Scheduled hourly with the first fire an hour away: tests call it.
 */
public class UnrecordedSettlement {

    private final Gate gate = new Gate();

    public Gate gate() {
        return gate;
    }

    @Scheduled(fixedRate = 1, initialDelay = 1, timeUnit = TimeUnit.HOURS)
    @Coordinated(value = "unrecorded-settlement", ttl = "5s")
    public void settle() throws InterruptedException {
        gate.pass();
        throw new IllegalStateException("the settlement's own failure");
    }
}
