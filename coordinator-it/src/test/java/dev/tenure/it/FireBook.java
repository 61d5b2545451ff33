package dev.tenure.it;

import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One job's account as the ledger and the business table hold it after a test: its {@code job_run} rows by fire key
 * (status and error), its MISSED summary records, and its {@code fire_effect} rows by fire key ({@code node/via} each).
 */
final class FireBook {

    private static final Pattern SUMMARY = Pattern.compile("^(\\d+) fires due from (\\S+) to (\\S+) missed");

    /** A summary record: {@code fires} fires due from {@code first} to {@code last}. */
    record Summary(Instant first, Instant last, long fires) {}

    final String job;
    final Map<Instant, String> status = new TreeMap<>();
    final Map<Instant, String> error = new HashMap<>();
    final List<Summary> summaries = new ArrayList<>();
    final Map<Instant, List<String>> effects = new TreeMap<>();
    /** Effect rows whose fire key is not an instant (none expected). */
    final List<String> otherEffects = new ArrayList<>();

    private FireBook(String job) {
        this.job = job;
    }

    static FireBook read(CoordinatorServers servers, String job) throws SQLException {
        FireBook b = new FireBook(job);
        for (String row : servers.strings("SELECT fire_key || '|' || status || '|' || coalesce(error, '') FROM "
                + "tenure.job_run WHERE job_key = '" + job + "'")) {
            String[] p = row.split("\\|", 3);
            if (p[0].contains("..")) {
                Matcher m = SUMMARY.matcher(p[2]);
                if (!m.find()) {
                    throw new AssertionError("a summary record of " + job + " without its count: " + row);
                }
                b.summaries.add(
                        new Summary(Instant.parse(m.group(2)), Instant.parse(m.group(3)), Long.parseLong(m.group(1))));
            } else {
                b.status.put(Instant.parse(p[0]), p[1]);
                b.error.put(Instant.parse(p[0]), p[2]);
            }
        }
        for (String row : servers.strings(
                "SELECT fire_key || '|' || node || '/' || via FROM fire_effect WHERE job = '" + job + "'")) {
            String[] p = row.split("\\|", 2);
            try {
                b.effects
                        .computeIfAbsent(Instant.parse(p[0]), k -> new ArrayList<>())
                        .add(p[1]);
            } catch (java.time.format.DateTimeParseException e) {
                b.otherEffects.add(row);
            }
        }
        return b;
    }

    /** The fire's status: its row's, {@code SUMMARISED} if a summary record counts it, or null if neither. */
    String statusOf(Instant fire) {
        String s = status.get(fire);
        if (s != null) {
            return s;
        }
        for (Summary m : summaries) {
            if (!fire.isBefore(m.first()) && !fire.isAfter(m.last())) {
                return "SUMMARISED";
            }
        }
        return null;
    }

    /** The effect rows of the fire ({@code node/via} each). */
    List<String> effectsOf(Instant fire) {
        return effects.getOrDefault(fire, List.of());
    }

    /** The fires with a row of this status. */
    List<Instant> withStatus(String s) {
        return status.entrySet().stream()
                .filter(e -> e.getValue().equals(s))
                .map(Map.Entry::getKey)
                .toList();
    }

    /** One line for a failure message. */
    @Override
    public String toString() {
        return job + ": rows " + status + ", summaries " + summaries + ", effects " + effects
                + (otherEffects.isEmpty() ? "" : ", other effects " + otherEffects);
    }
}
