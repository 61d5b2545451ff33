package dev.tenure.testkit;

/** Valkey's key-to-slot function: CRC16-XMODEM (polynomial 0x1021, initial value 0) of the hash tag, mod 16384. */
final class ClusterSlots {

    static final int SLOTS = 16384;

    private ClusterSlots() {}

    static int slotOf(byte[] key) {
        int from = 0;
        int to = key.length;
        int open = indexOf(key, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(key, (byte) '}', open + 1);
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        return crc16(key, from, to) & (SLOTS - 1);
    }

    static int crc16(byte[] bytes, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xFFFF;
    }

    private static int indexOf(byte[] bytes, byte wanted, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }
}
