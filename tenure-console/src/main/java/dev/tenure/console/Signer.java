package dev.tenure.console;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 signatures with a random secret of its own (32 bytes, never leaves the instance): what makes the
 * console's session cookies and CSRF tokens unforgeable and valid only for the console instance that issued them.
 * Thread-safe.
 */
final class Signer {

    private static final SecureRandom RANDOM = new SecureRandom();
    private final byte[] secret = new byte[32];

    Signer() {
        RANDOM.nextBytes(secret);
    }

    /** The signature of {@code text}, URL-safe Base64 without padding. */
    String sign(String text) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret, "HmacSHA256"));
            byte[] mac = m.doFinal(text.getBytes(StandardCharsets.UTF_8));
            return Base64.getUrlEncoder().withoutPadding().encodeToString(mac);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    /** True if {@code signature} is the signature of {@code text}; compared in constant time. */
    boolean matches(String text, String signature) {
        return MessageDigest.isEqual(
                sign(text).getBytes(StandardCharsets.US_ASCII), signature.getBytes(StandardCharsets.US_ASCII));
    }

    /** {@code bytes} random bytes, URL-safe Base64 without padding. */
    static String randomId(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
