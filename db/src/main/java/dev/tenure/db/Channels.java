package dev.tenure.db;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The {@code NOTIFY} channel of a job key: {@code tenure_} + 24 hex digits of SHA-256(schema + '/' + key). Keys can
 * be longer than a channel name may be (63 bytes) and contain characters an identifier may not, hence the hash; the
 * schema is part of it so that two Tenure schemas in one database never wake each other.
 */
final class Channels {

    private Channels() {}

    public static String of(String schema, String key) {
        try {
            byte[] d =
                    MessageDigest.getInstance("SHA-256").digest((schema + "/" + key).getBytes(StandardCharsets.UTF_8));
            StringBuilder s = new StringBuilder("tenure_");
            for (int i = 0; i < 12; i++) {
                s.append(Character.forDigit((d[i] >> 4) & 0xF, 16)).append(Character.forDigit(d[i] & 0xF, 16));
            }
            return s.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
