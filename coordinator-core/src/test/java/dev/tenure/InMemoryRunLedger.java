package dev.tenure;

import dev.tenure.spi.RunLedger;

import java.sql.Connection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Run rows in memory; the current epoch of a job is the database fake's fencing counter. */
final class InMemoryRunLedger implements RunLedger {

    record Row(String runId, String owner, long epoch, String status) {
    }

    final Map<String, Row> runs = new ConcurrentHashMap<>();
    private final InMemoryLeaseStore database;
    private final AtomicLong ids = new AtomicLong();

    InMemoryRunLedger(InMemoryLeaseStore database) {
        this.database = database;
    }

    private long currentEpoch(String jobKey) {
        AtomicLong f = database.fences.get(jobKey);
        return f == null ? 0 : f.get();
    }

    @Override
    public synchronized FireStart startRun(String jobKey, String fireKey, long epoch, String owner) {
        Row r = runs.get(jobKey + "/" + fireKey);
        if (r != null && r.status().equals("COMPLETED")) {
            return new FireStart.AlreadyCompleted(r.runId(), r.owner(), r.epoch());
        }
        if (r != null && r.status().equals("RUNNING") && r.epoch() == currentEpoch(jobKey) && r.epoch() != epoch) {
            return new FireStart.InProgress(r.runId(), r.owner(), r.epoch());
        }
        String id = "run-" + ids.incrementAndGet();
        runs.put(jobKey + "/" + fireKey, new Row(id, owner, epoch, "RUNNING"));
        return new FireStart.Started(id);
    }

    @Override
    public synchronized boolean finish(String jobKey, long epoch, String runId, boolean succeeded, String error) {
        String key = runs.entrySet().stream().filter(e -> e.getValue().runId().equals(runId)).map(Map.Entry::getKey).findFirst().orElseThrow();
        Row r = runs.get(key);
        if (epoch != currentEpoch(jobKey)) {
            runs.put(key, new Row(runId, r.owner(), epoch, "REJECTED_STALE"));
            return false;
        }
        runs.put(key, new Row(runId, r.owner(), epoch, succeeded ? "COMPLETED" : "FAILED"));
        return true;
    }

    @Override
    public void fence(Connection connection, String jobKey, long epoch) {
        if (epoch != currentEpoch(jobKey)) {
            throw new LeaseLostException(jobKey, "?", "epoch " + epoch + " is stale");
        }
    }
}
