package dev.tenure.bench.coordinated;

import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One row of the scale benchmark: what the nodes counted, what the window's deltas were, and how the ledger accounts
 * for the window's fires. Costs divide a window delta by the fires run in the window ({@link #perRun}).
 *
 * @param jobs        jobs registered and fired by every node
 * @param nodes       node processes
 * @param mode        VALKEY or DATABASE
 * @param spread      slots spread over the period (false: every job at its top)
 * @param load        1-minute load average before the row
 * @param seconds     the measured window
 * @param nodeResults each node's RESULT pairs
 * @param pg          pg_stat_database / pg_stat_wal deltas over the window
 * @param valkey      INFO commandstats deltas over the window
 * @param machine     {busy, total} CPU seconds of the machine over the window
 * @param nodesCpu    CPU seconds of the node JVMs over the window
 * @param threads     the nodes' CPU seconds by thread group over the window
 * @param pgCpu       CPU seconds of the database's client backends and the WAL writer over the window
 * @param valkeyCpu   CPU seconds of valkey-server over the window
 * @param settled     seconds after the window until the sweeper had accounted for all its fires; NaN if it had not
 *                    within the bound
 * @param account     the ledger's account of the window's fires
 */
record ScaleRow(
        int jobs,
        int nodes,
        String mode,
        boolean spread,
        String load,
        double seconds,
        List<Map<String, String>> nodeResults,
        Map<String, Double> pg,
        Map<String, Long> valkey,
        double[] machine,
        double nodesCpu,
        Map<String, Double> threads,
        double pgCpu,
        double valkeyCpu,
        double settled,
        ScaleLedger.Account account) {

    long sum(String key) {
        return nodeResults.stream()
                .mapToLong(m -> Long.parseLong(m.getOrDefault(key, "0")))
                .sum();
    }

    double max(String key) {
        return nodeResults.stream()
                .mapToDouble(m -> Double.parseDouble(m.getOrDefault(key, "0")))
                .max()
                .orElse(0);
    }

    /** {@code v} per fire due in the window. */
    double perFire(double v) {
        return account.due() == 0 ? Double.NaN : v / account.due();
    }

    /**
     * {@code v} per fire run in the window: EXECUTED runs that ended inside it, on every node, catch-ups included. As
     * many as fires due while the nodes keep up; fewer when they fall behind, when only this divides costs right.
     */
    double perRun(double v) {
        long runs = sum("units");
        return runs == 0 ? Double.NaN : v / runs;
    }

    double pg(String key) {
        return pg.getOrDefault(key, 0.0);
    }

    /** CPU seconds of the nodes' JIT compiler threads over the window. */
    double jitCpu() {
        return threads.entrySet().stream()
                .filter(e -> e.getKey().contains("CompilerThre"))
                .mapToDouble(Map.Entry::getValue)
                .sum();
    }

    long valkeyCommands() {
        return valkey.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The host schedulers' lag (fire time to call) of all nodes' regular fires due in the window, microseconds. */
    Histogram lag() {
        Histogram h = new Histogram(3_600_000_000L, 3);
        for (Map<String, String> m : nodeResults) {
            try {
                h.add(Histogram.decodeFromCompressedByteBuffer(
                        java.nio.ByteBuffer.wrap(java.util.Base64.getDecoder().decode(m.get("lag"))), 0));
            } catch (java.util.zip.DataFormatException e) {
                throw new IllegalStateException("a node's lag histogram does not decode", e);
            }
        }
        return h;
    }

    /** The first error any node reported, or null. */
    String firstError() {
        return nodeResults.stream()
                .map(m -> m.get("error"))
                .filter(e -> e != null && !e.equals("-"))
                .findFirst()
                .map(e -> new String(java.util.Base64.getDecoder().decode(e), java.nio.charset.StandardCharsets.UTF_8))
                .orElse(null);
    }

    /**
     * ok; FAILED when a fire ran twice, a run and its business row disagree, or the sweeper accounted for the window
     * (every job's swept_until past it) while a fire of it is neither run nor MISSED: a silent miss; behind when the
     * sweeper had not accounted for the window within the bound (its open fires are still overdue to Tenure, not lost).
     */
    String result() {
        ScaleLedger.Account a = account;
        if (a.duplicates() > 0 || a.inconsistent() > 0 || (a.open() > 0 && !Double.isNaN(settled))) {
            return "FAILED";
        }
        return Double.isNaN(settled) ? "behind" : "ok";
    }
}
