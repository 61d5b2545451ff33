package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TimingTest {

    private final String original = System.getProperty(Timing.PROPERTY);

    @AfterEach
    void restore() {
        if (original == null) {
            System.clearProperty(Timing.PROPERTY);
        } else {
            System.setProperty(Timing.PROPERTY, original);
        }
    }

    @Test
    void scaled_noProperty_returnsBase() {
        System.clearProperty(Timing.PROPERTY);
        assertThat(Timing.multiplier()).isEqualTo(1.0);
        assertThat(Timing.scaled(Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void scaled_multiplierSet_multiplies() {
        System.setProperty(Timing.PROPERTY, "2.5");
        assertThat(Timing.scaled(Duration.ofMillis(400))).isEqualTo(Duration.ofMillis(1000));
        assertThat(Timing.scaledMillis(10)).isEqualTo(25);
        assertThat(Timing.scaled(Duration.ZERO)).isEqualTo(Duration.ZERO);
    }

    @Test
    void multiplier_invalidValue_throwsWithPropertyName() {
        System.setProperty(Timing.PROPERTY, "-1");
        assertThatThrownBy(Timing::multiplier)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Timing.PROPERTY);
        System.setProperty(Timing.PROPERTY, "fast");
        assertThatThrownBy(Timing::multiplier).isInstanceOf(IllegalArgumentException.class);
    }
}
