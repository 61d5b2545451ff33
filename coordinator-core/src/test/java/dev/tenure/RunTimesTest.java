package dev.tenure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.metrics.RunMetrics;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunTimesTest {

    @Test
    void everyMethodOfRunMetrics_isPassedOn_noneIsLeftToItsDefault() throws Exception {
        List<String> missing = Arrays.stream(RunMetrics.class.getDeclaredMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> {
                    try {
                        Method own = RunTimes.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
                        return own.isSynthetic();
                    } catch (NoSuchMethodException e) {
                        return true;
                    }
                })
                .map(Method::getName)
                .toList();
        assertThat(missing).as("RunMetrics methods RunTimes does not pass on").isEmpty();
    }

    @Test
    void keepsTheLastRunTimePerJob_andPassesItOn() {
        Duration[] seen = new Duration[1];
        RunTimes times = new RunTimes(new RunMetrics() {
            @Override
            public void runTook(String jobKey, Duration ran) {
                seen[0] = ran;
            }
        });
        assertThat(times.last("a")).isNull();
        times.runTook("a", Duration.ofMillis(400));
        times.runTook("a", Duration.ofMillis(300));
        assertThat(times.last("a")).isEqualTo(Duration.ofMillis(300));
        assertThat(times.last("b")).isNull();
        assertThat(seen[0]).isEqualTo(Duration.ofMillis(300));
        assertThat(times.lastRegular("a")).as("a regular run ended").isNotNull();
    }

    @Test
    void aRunMadeByACatchUp_isNotARegularFire() throws Exception {
        RunTimes times = new RunTimes(RunMetrics.none());
        RunTimes.asCatchUp(fire -> times.runTook("j", Duration.ofMillis(250)), "f1");
        assertThat(times.last("j")).isEqualTo(Duration.ofMillis(250));
        assertThat(times.lastRegular("j")).as("only catch-ups ran").isNull();
        times.runTook("j", Duration.ofMillis(200));
        assertThat(times.lastRegular("j")).isNotNull();
    }
}
