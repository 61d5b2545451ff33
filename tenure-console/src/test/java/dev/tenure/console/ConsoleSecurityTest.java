package dev.tenure.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

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
    void csrfTokens_areBoundToActionJobOperatorAndSession_andExpire() {
        MutableClock clock = new MutableClock();
        CsrfTokens tokens = new CsrfTokens(clock);
        Sessions.Session mine = new Sessions.Session("ops", "session-a");
        String t = tokens.issue("release", "nightly", mine);
        assertThat(tokens.verify(t, "release", "nightly", mine)).isTrue();
        assertThat(tokens.verify(t, "release", "other", mine)).isFalse();
        assertThat(tokens.verify(t, "delete", "nightly", mine)).isFalse();
        assertThat(tokens.verify(t, "release", "nightly", new Sessions.Session("ops", "session-b")))
                .as("the same operator's other session")
                .isFalse();
        assertThat(tokens.verify(t, "release", "nightly", new Sessions.Session("ann", "session-a")))
                .as("another operator")
                .isFalse();
        assertThat(tokens.verify(t.replace('.', '-'), "release", "nightly", mine))
                .isFalse();
        assertThat(tokens.verify(null, "release", "nightly", mine)).isFalse();
        assertThat(new CsrfTokens(clock).verify(t, "release", "nightly", mine))
                .as("another console's secret")
                .isFalse();
        clock.now = clock.now.plus(CsrfTokens.VALIDITY).plusSeconds(1);
        assertThat(tokens.verify(t, "release", "nightly", mine)).as("expired").isFalse();
    }

    @Test
    void sessions_areBoundToTheirOperator_signed_andExpire() {
        MutableClock clock = new MutableClock();
        Sessions sessions = new Sessions(clock);
        String a = sessions.open("ops");
        String b = sessions.open("ops");
        String cookies = "theme=dark; " + Sessions.COOKIE + "=" + a + "; other=1";
        assertThat(sessions.find(cookies, "ops")).get().satisfies(s -> {
            assertThat(s.operator()).isEqualTo("ops");
            assertThat(s.id()).isNotBlank();
        });
        assertThat(sessions.find(Sessions.COOKIE + "=" + b, "ops").orElseThrow().id())
                .as("a new id per sign-in")
                .isNotEqualTo(sessions.find(cookies, "ops").orElseThrow().id());
        assertThat(sessions.find(cookies, "ann"))
                .as("opened for another operator")
                .isEmpty();
        String[] parts = a.split("\\.");
        assertThat(sessions.find(Sessions.COOKIE + "=" + parts[0] + ".forged-id." + parts[2], "ops"))
                .isEmpty();
        assertThat(sessions.find(
                        Sessions.COOKIE + "=" + (Long.parseLong(parts[0]) + 3600) + "." + parts[1] + "." + parts[2],
                        "ops"))
                .as("a later expiry")
                .isEmpty();
        assertThat(new Sessions(clock).find(cookies, "ops"))
                .as("another console's secret")
                .isEmpty();
        assertThat(sessions.find(null, "ops")).isEmpty();
        assertThat(sessions.find("theme=dark", "ops")).isEmpty();
        assertThat(Sessions.setCookie(a, "/app/tenure-console"))
                .isEqualTo(Sessions.COOKIE + "=" + a
                        + "; Path=/app/tenure-console/; Max-Age=28800; HttpOnly; SameSite=Strict");
        clock.now = clock.now.plus(Sessions.VALIDITY).plusSeconds(1);
        assertThat(sessions.find(cookies, "ops")).as("expired").isEmpty();
    }

    @Test
    void timeline_escapesNodeAndFireNames() {
        Views.Run r = new Views.Run(
                java.util.UUID.randomUUID(),
                "<f>",
                7,
                "<o>",
                null,
                "COMPLETED",
                1,
                null,
                Instant.parse("2026-12-03T00:00:00Z"),
                Instant.parse("2026-12-03T00:00:01Z"),
                null,
                false,
                null);
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
