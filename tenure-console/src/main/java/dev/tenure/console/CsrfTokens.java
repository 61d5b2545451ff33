package dev.tenure.console;

import java.time.Clock;
import java.time.Duration;

/**
 * Stateless CSRF tokens for the write form: {@code <expiry seconds>.<HMAC-SHA256(secret, action, expiry, operator,
 * session, job)>}, with a random secret per console instance. A page from this console carries one; another site cannot
 * read it (same-origin policy), so it cannot forge the POST even while the operator's browser holds the credentials.
 * Valid for {@link #VALIDITY}, for one action on one job, in the signed-in operator's session it was issued in: a
 * token of another operator or another session is refused. Thread-safe.
 */
final class CsrfTokens {

    /** How long a form stays usable. */
    static final Duration VALIDITY = Duration.ofHours(1);

    private final Signer signer = new Signer();
    private final Clock clock;

    CsrfTokens(Clock clock) {
        this.clock = clock;
    }

    /** A token for {@code action} on {@code jobKey} in {@code session}. */
    String issue(String action, String jobKey, Sessions.Session session) {
        long expiry = clock.instant().plus(VALIDITY).getEpochSecond();
        return expiry + "." + signer.sign(text(action, jobKey, expiry, session));
    }

    /** True if {@code token} was issued here for this action, job and session and has not expired. */
    boolean verify(String token, String action, String jobKey, Sessions.Session session) {
        int dot = token == null ? -1 : token.indexOf('.');
        if (dot < 1) {
            return false;
        }
        long expiry;
        try {
            expiry = Long.parseLong(token.substring(0, dot));
        } catch (NumberFormatException e) {
            return false;
        }
        return signer.matches(text(action, jobKey, expiry, session), token.substring(dot + 1))
                && clock.instant().getEpochSecond() <= expiry;
    }

    private static String text(String action, String jobKey, long expiry, Sessions.Session session) {
        // the one free-form field last, so that no two inputs give the same text
        return action + "|" + expiry + "|" + session.operator() + "|" + session.id() + "|" + jobKey;
    }
}
