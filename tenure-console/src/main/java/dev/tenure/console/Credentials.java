package dev.tenure.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Optional;

/**
 * The operator's user and password for the console's write actions, checked against an HTTP Basic
 * {@code Authorization} header in constant time (SHA-256 digests compared with {@link MessageDigest#isEqual}, so
 * neither the length nor the first wrong character shows in the timing). Immutable.
 */
final class Credentials {

    private final String user;
    private final byte[] digest;

    Credentials(String user, String password) {
        if (user == null || user.isBlank() || user.contains(":") || password == null || password.length() < 8) {
            throw new IllegalArgumentException(
                    "console actions need a user (no ':') and a password of at least 8 " + "characters");
        }
        this.user = user;
        this.digest = sha256(user + ":" + password);
    }

    /** The user named by a valid {@code Basic} header, else empty. */
    Optional<String> check(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Optional.empty();
        }
        String pair;
        try {
            pair = new String(
                    Base64.getDecoder().decode(authorization.substring(6).trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        return MessageDigest.isEqual(digest, sha256(pair)) ? Optional.of(user) : Optional.empty();
    }

    static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
