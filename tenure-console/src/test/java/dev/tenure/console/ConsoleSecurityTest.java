package dev.tenure.console;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConsoleSecurityTest {

    @Test
    void esc_escapesEveryMarkupCharacter() {
        assertThat(Html.esc("<a href=\"x\" onclick='y'>&</a>"))
                .isEqualTo("&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
        assertThat(Html.esc(null)).isEmpty();
    }

    @Test
    void credentials_acceptOnlyTheExactPair() {
        Credentials c = new Credentials("ops", "s3cret-pass");
        assertThat(c.check(Http.basic("ops", "s3cret-pass"))).hasValue("ops");
        assertThat(c.check(Http.basic("ops", "s3cret-pas"))).isEmpty();
        assertThat(c.check(Http.basic("opsx", "s3cret-pass"))).isEmpty();
        assertThat(c.check("Bearer s3cret-pass")).isEmpty();
        assertThat(c.check("Basic not-base64!")).isEmpty();
        assertThat(c.check(null)).isEmpty();
        assertThatThrownBy(() -> new Credentials("ops", "short")).hasMessageContaining("at least 8 characters");
    }

    @Test
    void csrfTokens_areBoundToActionAndJob_andExpire() {
        MutableClock clock = new MutableClock();
        CsrfTokens tokens = new CsrfTokens(clock);
        String t = tokens.issue("release", "nightly");
        assertThat(tokens.verify(t, "release", "nightly")).isTrue();
        assertThat(tokens.verify(t, "release", "other")).isFalse();
        assertThat(tokens.verify(t, "delete", "nightly")).isFalse();
        assertThat(tokens.verify(t.replace('.', '-'), "release", "nightly")).isFalse();
        assertThat(tokens.verify(null, "release", "nightly")).isFalse();
        assertThat(new CsrfTokens(clock).verify(t, "release", "nightly")).as("another console's secret").isFalse();
        clock.now = clock.now.plus(CsrfTokens.VALIDITY).plusSeconds(1);
        assertThat(tokens.verify(t, "release", "nightly")).as("expired").isFalse();
    }

    @Test
    void timeline_escapesNodeAndFireNames() {
        Views.Run r = new Views.Run(java.util.UUID.randomUUID(), "<f>", 7, "<o>", "COMPLETED", 1, null,
                Instant.parse("2026-12-03T00:00:00Z"), Instant.parse("2026-12-03T00:00:01Z"), null, false);
        String svg = TimelineSvg.render(java.util.List.of(r), Instant.parse("2026-12-03T00:00:02Z"));
        assertThat(svg).contains("&lt;f&gt;", "&lt;o&gt;").doesNotContain("<f>", "<o>");
    }

    /** A clock the test moves. */
    static final class MutableClock extends Clock {
        Instant now = Instant.parse("2026-12-03T00:00:00Z");

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
