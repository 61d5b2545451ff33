package dev.tenure.bench.coordinated;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One row of the benchmark: which library runs on the nodes, with which arguments, and what one unit is.
 *
 * @param name    row name
 * @param kind    the node's workload ({@link Node})
 * @param args    node arguments beyond the common ones
 * @param threads worker threads per node
 * @param unit    what one counted unit executes
 * @param latency whether per-unit latency is meaningful (a call from begin to finish, not time in a queue)
 */
record Scenario(String name, String kind, Map<String, String> args, int threads, String unit, boolean latency) {

    static final String TENURE_UNIT =
            "runInTransaction(): claim+start (1 stmt), one tx (insert, complete+release, commit)";
    static final String TENURE_RUN_UNIT =
            "run() + completeInTransaction: claim+start (1 stmt), business tx (fence, insert, "
                    + "complete, commit), finish+release (1 stmt)";

    /** The values of {@code --observations}: Tenure's runs observed by nothing, by meters, or by a tracer. */
    static final List<String> OBSERVATIONS = List.of("none", "meters", "tracing");

    static List<String> checkObservations(List<String> values) {
        if (values.isEmpty() || !OBSERVATIONS.containsAll(values)) {
            throw new IllegalArgumentException("--observations takes " + OBSERVATIONS + " (got " + values + ")");
        }
        return values;
    }

    /**
     * Every row; each Tenure row once per value of {@code observations}, back to back ("+meters", "+tracing"), and that
     * {@code rounds} times in turn ("@2", "@3": on a busy machine the rounds share its noise).
     */
    static List<Scenario> all(int threads, int jobs, List<String> observations, int rounds) {
        List<Scenario> s = new ArrayList<>();
        for (Scenario sc : all(threads, jobs)) {
            if (!sc.tenure()) {
                s.add(sc);
                continue;
            }
            for (int r = 1; r <= rounds; r++) {
                String round = r == 1 ? "" : " @" + r;
                for (String o : observations) {
                    Map<String, String> a = new LinkedHashMap<>(sc.args());
                    if (!o.equals("none")) {
                        a.put("observations", o);
                    }
                    s.add(new Scenario(
                            sc.name() + (o.equals("none") ? "" : " +" + o) + round,
                            sc.kind(),
                            a,
                            sc.threads(),
                            sc.unit(),
                            sc.latency()));
                }
            }
        }
        return s;
    }

    /** The {@code --observations} value of this row ({@code none} unless it is a "+" row). */
    String observations() {
        return args.getOrDefault("observations", "none");
    }

    /** The same row unobserved in the same round: the name without its "+meters" or "+tracing". */
    String unobservedName() {
        return observations().equals("none") ? name : name.replace(" +" + observations(), "");
    }

    /** The row's name without its round ("@2") and observations. */
    String baseName() {
        return unobservedName().replaceAll(" @\\d+$", "");
    }

    static List<Scenario> all(int threads, int jobs) {
        List<Scenario> s = new ArrayList<>();
        for (String mode : List.of("VALKEY", "DATABASE")) {
            String m = mode.equals("VALKEY") ? "valkey" : "db";
            String lease = mode.equals("VALKEY") ? "Valkey acquire/release around " : "";
            s.add(new Scenario(
                    "tenure-" + m + " 1 job",
                    "tenure",
                    args("mode", mode, "jobs", "1"),
                    1,
                    "one EXECUTED " + lease + TENURE_UNIT,
                    true));
        }
        for (String fires : List.of("own", "shared")) {
            for (String mode : List.of("VALKEY", "DATABASE")) {
                String m = mode.equals("VALKEY") ? "valkey" : "db";
                String lease = mode.equals("VALKEY") ? "Valkey acquire/release around " : "";
                s.add(new Scenario(
                        "tenure-" + m + " " + jobs + " jobs" + (fires.equals("shared") ? " shared" : ""),
                        "tenure",
                        args("mode", mode, "jobs", Integer.toString(jobs), "fires", fires),
                        threads,
                        "one EXECUTED " + lease + TENURE_UNIT,
                        true));
            }
        }
        for (String fires : List.of("own", "shared")) {
            for (String mode : List.of("VALKEY", "DATABASE")) {
                // the A/B of grouped claims (issue 37): the same row with every claim a statement of its own
                String m = mode.equals("VALKEY") ? "valkey" : "db";
                String lease = mode.equals("VALKEY") ? "Valkey acquire/release around " : "";
                s.add(new Scenario(
                        "tenure-" + m + " " + jobs + " jobs" + (fires.equals("shared") ? " shared" : "")
                                + " claims alone",
                        "tenure",
                        args("mode", mode, "jobs", Integer.toString(jobs), "fires", fires, "claimsPerStatement", "1"),
                        threads,
                        "one EXECUTED " + lease + TENURE_UNIT + ", every claim a statement of its own",
                        true));
            }
        }
        for (String mode : List.of("VALKEY", "DATABASE")) {
            String m = mode.equals("VALKEY") ? "valkey" : "db";
            String lease = mode.equals("VALKEY") ? "Valkey acquire/release around " : "";
            s.add(new Scenario(
                    "tenure-" + m + " " + jobs + " jobs run()",
                    "tenure",
                    args("mode", mode, "jobs", Integer.toString(jobs), "fires", "own", "api", "run"),
                    threads,
                    "one EXECUTED " + lease + TENURE_RUN_UNIT,
                    true));
        }
        s.add(new Scenario(
                "db-scheduler",
                "dbscheduler",
                args("jobs", Integer.toString(jobs)),
                threads,
                "one due one-time execution: picked (batched select-for-update), task inserts the row (autocommit), execution deleted",
                false));
        s.add(new Scenario(
                "quartz clustered",
                "quartz",
                args("jobs", Integer.toString(jobs)),
                threads,
                "one fire of a due one-shot trigger: acquired + fired (batched, under the cluster lock), job inserts the row "
                        + "(autocommit), trigger completed",
                false));
        s.add(new Scenario(
                "shedlock jdbc",
                "shedlock",
                args("jobs", Integer.toString(jobs)),
                threads,
                "lock (UPDATE, usingDbTime), insert the row (autocommit), unlock (UPDATE)",
                true));
        return s;
    }

    boolean tenure() {
        return kind.equals("tenure");
    }

    boolean valkey() {
        return "VALKEY".equals(args.get("mode"));
    }

    private static Map<String, String> args(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }
}
