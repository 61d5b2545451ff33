package dev.tenure;

import dev.tenure.spi.RunLedger;

import java.sql.Connection;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run rows in memory; the current epoch of a job is the database fake's fencing counter. Not transactional: a
 * completion takes effect at once (the connection is ignored).
 */
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

    private boolean current(String jobKey, long epoch) {
        return epoch == currentEpoch(jobKey);
    }

    @Override
    public Optional<FireStart.AlreadyCompleted> completedRun(String jobKey, String fireKey) {
        Row r = runs.get(jobKey + "/" + fireKey);
        return r != null && r.status().equals("COMPLETED")
                ? Optional.of(new FireStart.AlreadyCompleted(r.runId(), r.owner(), r.epoch())) : Optional.empty();
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

    private String keyOf(String runId) {
        return runs.entrySet().stream().filter(e -> e.getValue().runId().equals(runId)).map(Map.Entry::getKey)
                .findFirst().orElseThrow();
    }

    @Override
    public synchronized Finished finish(String jobKey, long epoch, String owner, String runId, boolean succeeded,
                                        String error) {
        String key = keyOf(runId);
        Row r = runs.get(key);
        if (r.status().equals("COMPLETED")) {
            return Finished.COMPLETED_EARLIER;
        }
        if (!current(jobKey, epoch)) {
            runs.put(key, new Row(runId, r.owner(), epoch, "REJECTED_STALE"));
            return Finished.STALE;
        }
        runs.put(key, new Row(runId, r.owner(), epoch, succeeded ? "COMPLETED" : "FAILED"));
        return Finished.RECORDED;
    }

    @Override
    public void fence(Connection connection, String jobKey, long epoch, String owner) {
        if (!current(jobKey, epoch)) {
            throw new LeaseLostException(jobKey, owner, "epoch " + epoch + " is stale");
        }
    }

    @Override
    public synchronized void complete(Connection connection, String jobKey, long epoch, String owner, String runId) {
        fence(connection, jobKey, epoch, owner);
        String key = keyOf(runId);
        Row r = runs.get(key);
        runs.put(key, new Row(runId, r.owner(), epoch, "COMPLETED"));
    }
}
