package dev.tenure.spi;

/** The rules every lease or job key must follow, checked once at the API boundary. */
public final class LeaseKeys {

    /** Longest accepted key, in characters. */
    public static final int MAX_LENGTH = 200;

    private LeaseKeys() {}

    /**
     * Returns {@code key} if it is non-empty, at most {@link #MAX_LENGTH} characters, and free of braces
     * (they would break the cluster hash tag), whitespace and control characters.
     *
     * @throws IllegalArgumentException naming the key and the rule it breaks
     */
    public static String validate(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException(
                    "lease key must not be empty (got " + (key == null ? "null" : "\"\"") + ")");
        }
        if (key.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("lease key '" + key.substring(0, 32) + "...' is " + key.length()
                    + " characters long; the limit is " + MAX_LENGTH);
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '{' || c == '}') {
                throw new IllegalArgumentException(
                        "lease key '" + key + "' must not contain '{' or '}' (they are used for the cluster hash tag)");
            }
            if (Character.isWhitespace(c) || Character.isISOControl(c)) {
                throw new IllegalArgumentException("lease key '" + key
                        + "' must not contain whitespace or control characters (at index " + i + ")");
            }
        }
        return key;
    }
}
