package dev.tenure.console;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code runs JOB}: one page of a job's fires in slot order (by fire key, the latest first); {@code --before} continues. */
@Command(
        name = "runs",
        description =
                "A job's fires in slot order (the latest fire key first): fire key, node, epoch, status, duration, "
                        + "rotations, what happened, trace id.")
final class RunsCommand extends CliCommand {

    @Parameters(index = "0", paramLabel = "JOB", description = "the job key")
    String job;

    @Option(names = "--limit", defaultValue = "50", description = "runs per page, 1..1000 (default: ${DEFAULT-VALUE})")
    int limit;

    @Option(names = "--before", paramLabel = "CURSOR", description = "continue after a page (its 'next' cursor)")
    String before;

    @Option(
            names = "--trace-link",
            paramLabel = "URL",
            defaultValue = "${env:TENURE_CONSOLE_TRACE_LINK}",
            description = "the trace UI's URL with {traceId}, e.g. https://tempo.example/trace/{traceId}: each run's "
                    + "traceUrl in --json (default: $TENURE_CONSOLE_TRACE_LINK)")
    String traceLink;

    @Override
    Output execute(Context ctx) {
        Views.RunPage page =
                ctx.queries().runs(job, Optional.ofNullable(before).map(Cursor::parse), limit("--limit", limit, 1000));
        TraceLink traces = TraceLink.of(traceLink);
        TextTable t = new TextTable(
                "FIRE", "NODE", "EPOCH", "STATUS", "DURATION", "ATTEMPT", "STARTED", "WHAT HAPPENED", "TRACE");
        for (Views.Run r : page.runs()) {
            t.row(
                    r.fireLabel(),
                    r.node(),
                    r.epoch(),
                    r.status(),
                    Html.duration(r.duration()),
                    r.attempt(),
                    Html.time(r.startedAt()),
                    JobPage.story(r),
                    r.traceId() == null ? "" : r.traceId());
        }
        String next = page.next().map(Cursor::encode).orElse(null);
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("job", job);
        json.put("runs", page.runs().stream().map(r -> CliRows.run(r, traces)).toList());
        json.put("next", next);
        return new Output(
                json,
                t.render("no runs of " + job)
                        + (next == null ? "" : "next page: --before " + next + System.lineSeparator()));
    }
}
