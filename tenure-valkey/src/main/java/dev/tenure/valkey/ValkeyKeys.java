package dev.tenure.valkey;

/**
 * Key layout. Every key of one lease shares a hash tag, so in a cluster they live in one slot:
 * {@code {<namespace>:<key>}:lease} (the lease; also the release notification channel) and
 * {@code {<namespace>:<key>}:fence} (the fencing counter), {@code {<namespace>:<key>}:waiting} (a marker that
 * someone found the lease held in the last 2 s), {@code {<namespace>:<key>}:queue} (the processes waiting for it, in
 * turn; expires a minute after the last one queued).
 */
final class ValkeyKeys {

    private ValkeyKeys() {}

    static final String LEASE = ":lease";
    static final String FENCE = ":fence";
    static final String WAITING = ":waiting";
    static final String QUEUE = ":queue";

    /** The hash tag shared by every key of one lease: {@code {<namespace>:<key>}}. */
    static String tag(String namespace, String key) {
        return "{" + namespace + ":" + key + "}";
    }

    static String lease(String namespace, String key) {
        return tag(namespace, key) + LEASE;
    }

    static String fence(String namespace, String key) {
        return tag(namespace, key) + FENCE;
    }

    /**
     * The channel on which a turn reserved for {@code engine} is announced: the lease key's channel plus
     * {@code :t:<engine>}, so only that process is woken (same hash tag: same shard in a cluster).
     */
    static String turnChannel(String leaseChannel, String engine) {
        return leaseChannel + ":t:" + engine;
    }

    static String waiting(String namespace, String key) {
        return tag(namespace, key) + WAITING;
    }

    static String queue(String namespace, String key) {
        return tag(namespace, key) + QUEUE;
    }

    /** The cluster slot of {@code key}: CRC16-XMODEM of its hash tag (or whole key), mod 16384. */
    static int slot(String key) {
        int start = key.indexOf('{');
        if (start >= 0) {
            int end = key.indexOf('}', start + 1);
            if (end > start + 1) {
                key = key.substring(start + 1, end);
            }
        }
        return crc16(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)) & 16383;
    }

    private static int crc16(byte[] bytes) {
        int crc = 0;
        for (byte b : bytes) {
            crc ^= (b & 0xFF) << 8;
            for (int i = 0; i < 8; i++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xFFFF;
    }
}
