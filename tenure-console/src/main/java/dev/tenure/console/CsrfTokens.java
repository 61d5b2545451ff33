package dev.tenure.console;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;

/**
 * Stateless CSRF tokens for the write form: {@code <expiry seconds>.<HMAC-SHA256(secret, action|job|expiry)>}, with a
 * random secret per console instance. A page from this console carries one; another site cannot read it (same-origin
 * policy), so it cannot forge the POST even while the operator's browser holds the Basic credentials. Valid for
 * {@link #VALIDITY}, for one action on one job. Thread-safe.
 */
final class CsrfTokens {

    /** How long a form stays usable. */
    static final Duration VALIDITY = Duration.ofHours(1);
    private final byte[] secret = new byte[32];
    private final Clock clock;

    CsrfTokens(Clock clock) {
        new SecureRandom().nextBytes(secret);
        this.clock = clock;
    }

    /** A token for {@code action} on {@code jobKey}. */
    String issue(String action, String jobKey) {
        long expiry = clock.instant().plus(VALIDITY).getEpochSecond();
        return expiry + "." + mac(action, jobKey, expiry);
    }

    /** True if {@code token} was issued here for this action and job and has not expired. */
    boolean verify(String token, String action, String jobKey) {
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
        byte[] expected = mac(action, jobKey, expiry).getBytes(StandardCharsets.US_ASCII);
        boolean match = MessageDigest.isEqual(expected, token.substring(dot + 1).getBytes(StandardCharsets.US_ASCII));
        return match && clock.instant().getEpochSecond() <= expiry;
    }

    private String mac(String action, String jobKey, long expiry) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret, "HmacSHA256"));
            byte[] out = m.doFinal((action + "|" + jobKey + "|" + expiry).getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }
}
