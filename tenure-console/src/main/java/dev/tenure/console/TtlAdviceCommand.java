package dev.tenure.console;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code ttl-advice [JOB]}: a lease TTL per job from its observed run durations ({@link TtlAdvice}). */
@Command(
        name = "ttl-advice",
        description = "Propose a lease TTL per job from its latest COMPLETED runs: 3 x p99 of "
                + "their durations, at least 1 s (as the coordinator's TtlAdvisor); needs at least 5 completed runs.")
final class TtlAdviceCommand extends CliCommand {

    static final String RULE = "3 x p99 of the durations of the COMPLETED runs among the latest "
            + ConsoleQueries.RECENT + " runs, at least 1 s";

    @Parameters(index = "0", arity = "0..1", paramLabel = "JOB", description = "one job (default: every job with runs)")
    String job;

    @Override
    Output execute(Context ctx) {
        ConsoleQueries q = ctx.queries();
        List<String> keys = job != null
                ? List.of(job)
                : q.jobs("", 1000).stream()
                        .filter(j -> j.kind().equals("job"))
                        .map(Views.Job::jobKey)
                        .toList();
        TextTable t = new TextTable("JOB", "COMPLETED RUNS", "P99", "MAX", "SUGGESTED TTL");
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String key : keys) {
            Optional<TtlAdvice> a = TtlAdvice.of(key, q.summary(key).recent());
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("job", key);
            m.put("samples", a.map(TtlAdvice::samples).orElse(null));
            m.put("p99Millis", a.map(TtlAdvice::p99).orElse(null));
            m.put("maxMillis", a.map(TtlAdvice::max).orElse(null));
            m.put("suggestedTtlMillis", a.map(TtlAdvice::suggested).orElse(null));
            rows.add(m);
            t.row(
                    key,
                    a.map(x -> (Object) x.samples()).orElse("fewer than " + TtlAdvice.MIN_SAMPLES),
                    a.map(x -> Html.duration(x.p99())).orElse("-"),
                    a.map(x -> Html.duration(x.max())).orElse("-"),
                    a.map(x -> Html.duration(x.suggested())).orElse("no advice"));
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("rule", RULE);
        json.put("jobs", rows);
        return new Output(json, t.render("no jobs with runs") + "rule: " + RULE + System.lineSeparator());
    }
}
