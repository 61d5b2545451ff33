package dev.tenure.console;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * Signed-in operators' sessions, without server-side state: a session is a random id in a cookie,
 * {@code <expiry seconds>.<id>.<signature over operator, expiry and id>}, set {@code HttpOnly} and
 * {@code SameSite=Strict} when the operator signs in. It is valid for {@link #VALIDITY}, on this console instance, for
 * the operator it was opened for, and only together with that operator's credentials: the console checks both on every
 * action, and binds each CSRF token to the session it was issued in. Thread-safe.
 */
final class Sessions {

    /** The cookie's name. */
    static final String COOKIE = "tenure-console-session";
    /** How long a sign-in lasts. */
    static final Duration VALIDITY = Duration.ofHours(8);

    private final Signer signer = new Signer();
    private final Clock clock;

    /** One operator's session. */
    record Session(String operator, String id) {}

    Sessions(Clock clock) {
        this.clock = clock;
    }

    /** A new session for {@code operator}: the cookie's value. */
    String open(String operator) {
        long expiry = clock.instant().plus(VALIDITY).getEpochSecond();
        String id = Signer.randomId(16);
        return expiry + "." + id + "." + signer.sign(operator + "|" + expiry + "|" + id);
    }

    /**
     * The session in a {@code Cookie} header, if it carries one that this instance opened for {@code operator} and that
     * has not expired.
     */
    Optional<Session> find(String cookieHeader, String operator) {
        String value = cookie(cookieHeader);
        String[] parts = value == null ? new String[0] : value.split("\\.", -1);
        if (parts.length != 3 || parts[1].isEmpty()) {
            return Optional.empty();
        }
        long expiry;
        try {
            expiry = Long.parseLong(parts[0]);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        boolean valid = signer.matches(operator + "|" + expiry + "|" + parts[1], parts[2])
                && clock.instant().getEpochSecond() <= expiry;
        return valid ? Optional.of(new Session(operator, parts[1])) : Optional.empty();
    }

    /** The {@code Set-Cookie} value for a new session on a console mounted at {@code base}. */
    static String setCookie(String value, String base) {
        return COOKIE + "=" + value + "; Path=" + base + "/; Max-Age=" + VALIDITY.toSeconds()
                + "; HttpOnly; SameSite=Strict";
    }

    /** This console's cookie from a {@code Cookie} header, or null. */
    private static String cookie(String header) {
        if (header == null) {
            return null;
        }
        for (String pair : header.split(";")) {
            String p = pair.strip();
            if (p.startsWith(COOKIE + "=")) {
                return p.substring(COOKIE.length() + 1);
            }
        }
        return null;
    }
}
