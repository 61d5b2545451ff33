package dev.tenure.examples.invoicing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * One job's fires as the ledger and the business table hold them: per slot, its COMPLETED runs, its MISSED records of
 * one fire, its invoices; the MISSED summary records (fire key {@code <first>..<last>}, error {@code "<n> fires due
 * from …"}); and the rows that ended otherwise. {@link #accounted(Instant)} says how many times a slot is accounted for:
 * once by a COMPLETED run, a MISSED record or a summary record, never twice. Immutable once read.
 */
final class SlotAccount {

    private static final Pattern SUMMARY = Pattern.compile("^(\\d+) fires due from ");

    /** A summary record: {@code fires} fires from {@code first} to {@code last}. */
    record Summary(Instant first, Instant last, long fires, String error) {}

    final String job;
    final Duration slot;
    final Map<Instant, Integer> completed = new TreeMap<>();
    final Map<Instant, Integer> missed = new TreeMap<>();
    final Map<Instant, Integer> invoices = new TreeMap<>();
    final List<Summary> summaries = new ArrayList<>();
    /** Rows neither COMPLETED nor MISSED: {@code <fire key> <status>}. */
    final List<String> unsettled = new ArrayList<>();

    private SlotAccount(String job, Duration slot) {
        this.job = job;
        this.slot = slot;
    }

    static SlotAccount read(DataSource db, String job, Duration slot) throws SQLException {
        SlotAccount a = new SlotAccount(job, slot);
        try (Connection c = db.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT fire_key, status, coalesce(error, '') FROM tenure.job_runs WHERE job_key = ?")) {
                ps.setString(1, job);
                try (ResultSet r = ps.executeQuery()) {
                    while (r.next()) {
                        a.add(r.getString(1), r.getString(2), r.getString(3));
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT slot FROM invoice WHERE job = ?")) {
                ps.setString(1, job);
                try (ResultSet r = ps.executeQuery()) {
                    while (r.next()) {
                        a.invoices.merge(Instant.parse(r.getString(1)), 1, Integer::sum);
                    }
                }
            }
        }
        return a;
    }

    private void add(String fireKey, String status, String error) {
        int dots = fireKey.indexOf("..");
        Matcher m = SUMMARY.matcher(error);
        if (status.equals("MISSED") && dots > 0 && m.find()) {
            summaries.add(new Summary(
                    Instant.parse(fireKey.substring(0, dots)),
                    Instant.parse(fireKey.substring(dots + 2)),
                    Long.parseLong(m.group(1)),
                    error));
        } else if (status.equals("COMPLETED")) {
            completed.merge(Instant.parse(fireKey), 1, Integer::sum);
        } else if (status.equals("MISSED")) {
            missed.merge(Instant.parse(fireKey), 1, Integer::sum);
        } else {
            unsettled.add(fireKey + " " + status);
        }
    }

    /** The first slot the ledger has a row of. */
    Instant first() {
        List<Instant> all = new ArrayList<>(completed.keySet());
        all.addAll(missed.keySet());
        summaries.forEach(s -> all.add(s.first()));
        return all.stream().min(Instant::compareTo).orElseThrow();
    }

    /** The last slot the ledger has a row of. */
    Instant last() {
        List<Instant> all = new ArrayList<>(completed.keySet());
        all.addAll(missed.keySet());
        summaries.forEach(s -> all.add(s.last()));
        return all.stream().max(Instant::compareTo).orElseThrow();
    }

    /** The slots from {@code from} to {@code to}, both included. */
    List<Instant> slots(Instant from, Instant to) {
        List<Instant> out = new ArrayList<>();
        for (Instant s = from; !s.isAfter(to); s = s.plus(slot)) {
            out.add(s);
        }
        return out;
    }

    /** Whether the slot has a COMPLETED run or a MISSED record of its own. */
    boolean hasRow(Instant s) {
        return completed.containsKey(s) || missed.containsKey(s);
    }

    /**
     * How many slots of a summary record's range it counts: those without a row of their own. A summary that says it
     * counts more than that counts some slot twice.
     */
    long uncovered(Summary s) {
        return slots(s.first(), s.last()).stream().filter(t -> !hasRow(t)).count();
    }

    /** How many times slot {@code s} is accounted for: COMPLETED runs, MISSED records, summary records that cover it. */
    int accounted(Instant s) {
        int n = completed.getOrDefault(s, 0) + missed.getOrDefault(s, 0);
        for (Summary sum : summaries) {
            if (!s.isBefore(sum.first()) && !s.isAfter(sum.last()) && !hasRow(s)) {
                n++;
            }
        }
        return n;
    }

    /** The fires the ledger stands for: a row each, a summary record's count for one. */
    long fires() {
        return completed.values().stream().mapToLong(Integer::longValue).sum()
                + missed.values().stream().mapToLong(Integer::longValue).sum()
                + summaries.stream().mapToLong(Summary::fires).sum()
                + unsettled.size();
    }

    /** Fires recorded MISSED: one a record of one fire, a summary record's count. */
    long missedFires() {
        return missed.values().stream().mapToLong(Integer::longValue).sum()
                + summaries.stream().mapToLong(Summary::fires).sum();
    }
}
